import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRemoteJWKSet } from "jose";
import { parseEnv } from "@/lib/env";
import { trustedIssuers, verifyIdToken, type TrustedIssuer } from "@/lib/auth/id-token";
import { startOidcProvider, type OidcHarness } from "../support/oidc";

// The Google ID-token path: GOOGLE_CLIENT_ID is the audience for Google's issuers, and only for
// them. Google's issuer names and key-set URL are fixed in lib/auth/id-token.ts (not configurable),
// so the real local OpenID provider signs the tokens and its published key set stands in for
// Google's; issuer and audience checks are the production ones from trustedIssuers().

const GOOGLE_CLIENT_ID = "1234-dropsite.apps.googleusercontent.com";
let oidc: OidcHarness;
let issuers: TrustedIssuer[];

beforeAll(async () => {
  oidc = await startOidcProvider();
  const all = trustedIssuers(parseEnv({ GOOGLE_CLIENT_ID, OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId }));
  const google = all.find((i) => i.issuers.includes("https://accounts.google.com"));
  expect(google?.issuers).toEqual(["https://accounts.google.com", "accounts.google.com"]);
  expect(google?.audiences).toEqual([GOOGLE_CLIENT_ID]);
  const localKeys = createRemoteJWKSet(new URL(oidc.jwksUri));
  issuers = all.map((i) => (i === google ? { ...i, jwks: async () => localKeys } : i));
});
afterAll(async () => {
  await oidc?.close();
});

const now = () => new Date();

describe("Google ID tokens (GOOGLE_CLIENT_ID as audience)", () => {
  it("a token from https://accounts.google.com for GOOGLE_CLIENT_ID is the Google identity", async () => {
    const token = await oidc.mintIdToken({
      sub: "g-123",
      email: "g@example.test",
      iss: "https://accounts.google.com",
      aud: GOOGLE_CLIENT_ID,
    });
    expect(await verifyIdToken(token, issuers, now())).toEqual({
      issuer: "https://accounts.google.com",
      subject: "g-123",
      email: "g@example.test",
      emailVerified: true,
    });
  });

  it("the scheme-less issuer Google also uses maps to the same identity", async () => {
    const token = await oidc.mintIdToken({ sub: "g-123", iss: "accounts.google.com", aud: GOOGLE_CLIENT_ID });
    expect(await verifyIdToken(token, issuers, now())).toEqual({
      issuer: "https://accounts.google.com",
      subject: "g-123",
      email: null,
      emailVerified: false,
    });
  });

  it("audiences are per issuer: Google's token for the OIDC client, or the OIDC issuer's for Google's client, is refused", async () => {
    const googleForOidcClient = await oidc.mintIdToken({
      sub: "g-123",
      iss: "https://accounts.google.com",
      aud: oidc.clientId,
    });
    expect(await verifyIdToken(googleForOidcClient, issuers, now())).toBeNull();
    const oidcForGoogleClient = await oidc.mintIdToken({ sub: "o-1", aud: GOOGLE_CLIENT_ID });
    expect(await verifyIdToken(oidcForGoogleClient, issuers, now())).toBeNull();
    // The OIDC issuer's own token for its own client passes, so the refusals above are the audience's.
    expect(await verifyIdToken(await oidc.mintIdToken({ sub: "o-1" }), issuers, now())).toMatchObject({
      issuer: oidc.issuer,
      subject: "o-1",
    });
  });

  it("another audience, an expired token, or a key Google did not publish is refused", async () => {
    expect(
      await verifyIdToken(
        await oidc.mintIdToken({ sub: "g-1", iss: "https://accounts.google.com", aud: "someone-else" }),
        issuers,
        now(),
      ),
    ).toBeNull();
    const expired = await oidc.mintIdToken({
      sub: "g-1",
      iss: "https://accounts.google.com",
      aud: GOOGLE_CLIENT_ID,
      iat: new Date(Date.now() - 7200_000),
      expiresIn: 3600,
    });
    expect(await verifyIdToken(expired, issuers, now())).toBeNull();
    const foreign = await oidc.foreignKeyToken(
      oidc.idTokenClaims({ sub: "g-1", iss: "https://accounts.google.com", aud: GOOGLE_CLIENT_ID }),
    );
    expect(await verifyIdToken(foreign, issuers, now())).toBeNull();
  });

  it("without GOOGLE_CLIENT_ID, Google's issuer is not trusted at all", () => {
    const none = trustedIssuers(parseEnv({ OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId }));
    expect(none.some((i) => i.issuers.includes("https://accounts.google.com"))).toBe(false);
  });
});
