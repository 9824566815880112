import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { loginChoices } from "@/lib/auth/session";

const ids = (vars: Record<string, string>) => loginChoices(parseEnv(vars)).map((p) => p.id);

describe("login providers", () => {
  it("offer the local-developer login only on localhost with no provider configured", () => {
    expect(ids({})).toEqual(["dev"]);
    expect(ids({ BASE_URL: "http://127.0.0.1:4000" })).toEqual(["dev"]);
    expect(ids({ BASE_URL: "https://drop.example.com" })).toEqual([]);
  });
  it("never next to a real provider", () => {
    expect(ids({ GOOGLE_CLIENT_ID: "g", GOOGLE_CLIENT_SECRET: "s" })).toEqual(["google"]);
    expect(ids({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s" })).toEqual([
      "oidc",
    ]);
    expect(
      ids({
        BASE_URL: "https://drop.example.com",
        GOOGLE_CLIENT_ID: "g",
        GOOGLE_CLIENT_SECRET: "s",
        OIDC_ISSUER: "https://id.example.com",
        OIDC_CLIENT_ID: "c",
        OIDC_CLIENT_SECRET: "s",
      }),
    ).toEqual(["google", "oidc"]);
  });
  it("a provider missing its secret is not offered", () => {
    expect(ids({ BASE_URL: "https://drop.example.com", GOOGLE_CLIENT_ID: "g" })).toEqual([]);
  });
});
