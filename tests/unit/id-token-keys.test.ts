import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { trustedIssuers } from "@/lib/auth/id-token";

// The key sets ID tokens are checked against are made once and kept across requests (an LRU
// cache by source): one discovery for concurrent first requests, a failed one tried again.

let server: Server;
let issuer: string;
let discoveries = 0;
let failNext = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== "/.well-known/openid-configuration") return void res.writeHead(404).end();
    discoveries++;
    if (failNext > 0) {
      failNext--;
      return void res.writeHead(503).end();
    }
    res
      .writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const issuersOf = (vars: Record<string, string>) => trustedIssuers(parseEnv(vars));

describe("ID-token key sets", () => {
  it("a failed discovery is not kept; concurrent lookups share one, and later requests reuse its key set", async () => {
    const oidc = () => issuersOf({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: "client" })[0]!;
    failNext = 1;
    await expect(oidc().jwks()).rejects.toThrow(/answered 503/);
    expect(discoveries).toBe(1);
    const [a, b] = await Promise.all([oidc().jwks(), oidc().jwks()]);
    expect(discoveries).toBe(2);
    expect(a).toBe(b);
    expect(await oidc().jwks()).toBe(a);
    expect(discoveries).toBe(2);
  });

  it("Google's key set is one across requests (its keys are fetched once, not per token)", async () => {
    const google = () => issuersOf({ GOOGLE_CLIENT_ID: "1234-dropsite.apps.googleusercontent.com" })[0]!;
    expect(google().issuers).toContain("https://accounts.google.com");
    expect(await google().jwks()).toBe(await google().jwks());
  });
});
