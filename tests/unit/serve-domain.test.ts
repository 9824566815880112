import { describe, expect, it, vi } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EnvError, parseEnv, resetEnv, sharedRegistrableDomain } from "@/lib/env";
import { authOptions, sessionCookies } from "@/lib/auth/session";

// Drops beside the app's domain: production refuses a SERVE_DOMAIN that shares the app's
// registrable domain unless the operator states it is on the Public Suffix List; production
// session cookies are __Host- cookies; auth problems log one line.

const prod = (vars: Record<string, string>) => parseEnv({ NODE_ENV: "production", NEXTAUTH_SECRET: "s", ...vars });

describe("SERVE_DOMAIN and the app's registrable domain", () => {
  it("names the shared registrable domain, private PSL entries included", () => {
    expect(sharedRegistrableDomain({ BASE_URL: "https://drop.example.com", SERVE_DOMAIN: "drops.example.com" })).toBe(
      "example.com",
    );
    expect(sharedRegistrableDomain({ BASE_URL: "https://example.com", SERVE_DOMAIN: "example.com" })).toBe(
      "example.com",
    );
    expect(
      sharedRegistrableDomain({ BASE_URL: "https://app.example.co.uk", SERVE_DOMAIN: "drops.example.co.uk:443" }),
    ).toBe("example.co.uk");
    expect(
      sharedRegistrableDomain({ BASE_URL: "https://drop.example.com", SERVE_DOMAIN: "example-drops.com" }),
    ).toBeNull();
    // vercel.app is a private public suffix: two projects under it are separate sites.
    expect(
      sharedRegistrableDomain({ BASE_URL: "https://myapp.vercel.app", SERVE_DOMAIN: "mydrops.vercel.app" }),
    ).toBeNull();
    expect(sharedRegistrableDomain({ BASE_URL: "http://localhost:3000", SERVE_DOMAIN: "localhost:3000" })).toBeNull();
    expect(
      sharedRegistrableDomain({ BASE_URL: "http://127.0.0.1:3000", SERVE_DOMAIN: "drops.localhost:3000" }),
    ).toBeNull();
  });

  it("production refuses a shared parent unless SERVE_DOMAIN_PUBLIC_SUFFIX is set; development allows it", () => {
    const shared = { BASE_URL: "https://drop.example.com", SERVE_DOMAIN: "drops.example.com" };
    expect(() => prod(shared)).toThrow(EnvError);
    expect(() => prod(shared)).toThrow(/SERVE_DOMAIN_PUBLIC_SUFFIX/);
    expect(prod({ ...shared, SERVE_DOMAIN_PUBLIC_SUFFIX: "1" }).SERVE_DOMAIN).toBe("drops.example.com");
    expect(prod({ BASE_URL: "https://drop.example.com", SERVE_DOMAIN: "example-drops.com" }).SERVE_DOMAIN).toBe(
      "example-drops.com",
    );
    expect(parseEnv({ NODE_ENV: "development", ...shared }).SERVE_DOMAIN).toBe("drops.example.com");
  });

  it("TRUST_PROXY_HOPS is a whole number from 1 to 10, default 1", () => {
    expect(parseEnv({}).TRUST_PROXY_HOPS).toBe(1);
    expect(parseEnv({ TRUST_PROXY_HOPS: "2" }).TRUST_PROXY_HOPS).toBe(2);
    for (const bad of ["0", "1.5", "x", "11"])
      expect(() => parseEnv({ TRUST_PROXY_HOPS: bad })).toThrow(/TRUST_PROXY_HOPS/);
  });
});

describe("session cookies", () => {
  it("over https the session cookie is a __Host- cookie: Secure, Path=/, no Domain", () => {
    const c = sessionCookies(parseEnv({ BASE_URL: "https://drop.example.com", NEXTAUTH_SECRET: "s" }))?.sessionToken;
    expect(c?.name).toBe("__Host-next-auth.session-token");
    expect(c?.options).toMatchObject({ secure: true, path: "/", httpOnly: true });
    expect(c?.options).not.toHaveProperty("domain");
    expect(sessionCookies(parseEnv({ BASE_URL: "http://localhost:3000" }))).toBeUndefined();
  });

  it("an unreadable session cookie logs one line, not a stack trace", () => {
    Object.assign(process.env, {
      BASE_URL: "http://localhost:3000",
      SERVE_DOMAIN: "localhost:3000",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "dropsite-auth-")),
    });
    resetEnv();
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const err = Object.assign(new Error("Invalid Compact JWE"), { name: "JWEInvalid" });
      authOptions().logger?.error?.("JWT_SESSION_ERROR", { error: err, message: err.message });
      expect(spy).toHaveBeenCalledTimes(1);
      const line = spy.mock.calls[0]!.map(String).join(" ");
      expect(line).toContain("JWT_SESSION_ERROR");
      expect(line).toContain("Invalid Compact JWE");
      expect(line).not.toContain("\n");
    } finally {
      spy.mockRestore();
    }
  });
});
