import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOidcProvider, type OidcHarness } from "@/tests/support/oidc";

// The OIDC test harness itself: discovery + JWKS, minted and hostile ID tokens against the same
// jwtVerify call the API uses, and the full authorization-code login through the dev pages.

const REDIRECT_URI = "http://localhost:3999/api/auth/callback/oidc";

let oidc: OidcHarness;
let discovery: Record<string, unknown>;
let jwks: JWTVerifyGetKey;

const verify = (token: string) =>
  jwtVerify(token, jwks, { issuer: oidc.issuer, audience: [oidc.clientId], algorithms: ["RS256"] });

beforeAll(async () => {
  oidc = await startOidcProvider({ redirectUris: [REDIRECT_URI] });
  const res = await fetch(oidc.discoveryUrl);
  expect(res.status).toBe(200);
  discovery = (await res.json()) as Record<string, unknown>;
  jwks = createRemoteJWKSet(new URL(String(discovery.jwks_uri)));
});

afterAll(async () => {
  await oidc?.close();
});

describe("discovery and JWKS", () => {
  it("publishes the issuer, endpoints and the signing key", async () => {
    expect(oidc.issuer).toMatch(/^http:\/\/localhost:\d+$/);
    expect(discovery.issuer).toBe(oidc.issuer);
    expect(discovery.jwks_uri).toBe(oidc.jwksUri);
    expect(discovery.authorization_endpoint).toBe(`${oidc.issuer}/auth`);
    expect(discovery.token_endpoint).toBe(`${oidc.issuer}/token`);
    expect(discovery.id_token_signing_alg_values_supported).toContain("RS256");
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
    expect(discovery.code_challenge_methods_supported).toContain("S256");

    const set = (await (await fetch(oidc.jwksUri)).json()) as { keys: Array<Record<string, unknown>> };
    expect(set.keys).toHaveLength(1);
    const [key] = set.keys;
    expect(key).toMatchObject({
      kty: "RSA",
      kid: oidc.kid,
      alg: "RS256",
      use: "sig",
      n: oidc.publicJwk.n,
      e: oidc.publicJwk.e,
    });
    expect(key).not.toHaveProperty("d");
  });
});

describe("minted ID tokens", () => {
  it("accepts a minted RS256 token", async () => {
    const token = await oidc.mintIdToken({ sub: "user-1", email: "user-1@example.test" });
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "RS256", kid: oidc.kid });
    const { payload } = await verify(token);
    expect(payload).toMatchObject({
      iss: oidc.issuer,
      sub: "user-1",
      aud: "dropsite-test",
      email: "user-1@example.test",
      email_verified: true,
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it("accepts an audience list containing the client id", async () => {
    const token = await oidc.mintIdToken({ sub: "u", aud: ["other", "dropsite-test"] });
    await expect(verify(token)).resolves.toBeTruthy();
  });

  const now = () => Math.floor(Date.now() / 1000);
  // [name, token factory, expected jose error code, message fragment]
  const cases: Array<[string, () => Promise<string>, string, string]> = [
    ["expired", () => oidc.mintIdToken({ sub: "u", iat: now() - 7200, expiresIn: 3600 }), "ERR_JWT_EXPIRED", '"exp"'],
    [
      "wrong audience",
      () => oidc.mintIdToken({ sub: "u", aud: "someone-else" }),
      "ERR_JWT_CLAIM_VALIDATION_FAILED",
      '"aud"',
    ],
    [
      "wrong issuer",
      () => oidc.mintIdToken({ sub: "u", iss: "http://evil" }),
      "ERR_JWT_CLAIM_VALIDATION_FAILED",
      '"iss"',
    ],
    [
      "not yet valid",
      () => oidc.mintIdToken({ sub: "u", nbf: now() + 3600 }),
      "ERR_JWT_CLAIM_VALIDATION_FAILED",
      '"nbf"',
    ],
    [
      "RS512 with the right key",
      () => oidc.mintIdToken({ sub: "u", alg: "RS512" }),
      "ERR_JOSE_ALG_NOT_ALLOWED",
      '"alg"',
    ],
    ["alg none", async () => oidc.unsignedToken(oidc.idTokenClaims({ sub: "u" })), "ERR_JOSE_ALG_NOT_ALLOWED", '"alg"'],
    [
      "HS256 keyed with the public key PEM",
      () => oidc.hs256WithPublicKey(oidc.idTokenClaims({ sub: "u" })),
      "ERR_JOSE_ALG_NOT_ALLOWED",
      '"alg"',
    ],
    [
      "HS256 keyed with the public JWK",
      () => oidc.hs256WithPublicKey(oidc.idTokenClaims({ sub: "u" }), "jwk"),
      "ERR_JOSE_ALG_NOT_ALLOWED",
      '"alg"',
    ],
    [
      "foreign RSA key with the same kid",
      () => oidc.foreignKeyToken(oidc.idTokenClaims({ sub: "u" })),
      "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
      "signature",
    ],
  ];
  it.each(cases)("rejects %s", async (_name, make, code, fragment) => {
    const token = await make();
    const err: unknown = await verify(token).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, "token was accepted").toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe(code);
    expect((err as Error).message).toContain(fragment);
  });

  it("hostile tokens carry otherwise valid claims", async () => {
    const claims = oidc.idTokenClaims({ sub: "u", email: "u@example.test" });
    expect(decodeJwt(oidc.unsignedToken(claims))).toEqual(claims);
    expect(decodeProtectedHeader(oidc.unsignedToken(claims))).toMatchObject({ alg: "none", kid: oidc.kid });
    expect(decodeProtectedHeader(await oidc.hs256WithPublicKey(claims))).toMatchObject({ alg: "HS256", kid: oidc.kid });
    expect(decodeProtectedHeader(await oidc.foreignKeyToken(claims))).toMatchObject({ alg: "RS256", kid: oidc.kid });
  });
});

// ---- a tiny cookie-carrying, manually redirected "browser" ----

interface StoredCookie {
  value: string;
  path: string;
}

class Browser {
  private jar = new Map<string, StoredCookie>(); // key: `${path}\n${name}`
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const cookie = [...this.jar.entries()]
      .filter(([, c]) => u.pathname === c.path || u.pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
      .map(([key, c]) => `${key.split("\n")[1]}=${c.value}`)
      .join("; ");
    const headers = new Headers(init.headers);
    if (cookie) headers.set("cookie", cookie);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) this.store(line, u);
    return res;
  }
  private store(line: string, u: URL) {
    const [pair, ...attrs] = line.split(";").map((s) => s.trim());
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    let path = u.pathname.replace(/\/[^/]*$/, "") || "/";
    let expired = value === "";
    for (const attr of attrs) {
      const [k, v = ""] = attr.split("=");
      const key = k!.toLowerCase();
      if (key === "path") path = v;
      if (key === "expires" && new Date(v).getTime() <= Date.now()) expired = true;
      if (key === "max-age" && Number(v) <= 0) expired = true;
    }
    const key = `${path}\n${name}`;
    if (expired) this.jar.delete(key);
    else this.jar.set(key, { value, path });
  }
  names(): string[] {
    return [...this.jar.keys()].map((k) => k.split("\n")[1]!);
  }
}

const formAction = (html: string, base: string) => {
  const m = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
  if (!m) throw new Error(`no form in page:\n${html.slice(0, 2000)}`);
  return new URL(m[1]!.replace(/&amp;/g, "&"), base).toString();
};

/** Follows redirects (GET) inside the provider until a page (200) or a redirect to redirect_uri. */
async function follow(browser: Browser, res: Response, from: string): Promise<{ res: Response; url: string }> {
  let url = from;
  for (let hops = 0; hops < 10; hops++) {
    if (res.status < 300 || res.status >= 400) return { res, url };
    const location = res.headers.get("location");
    if (!location) throw new Error(`redirect without location from ${url}`);
    url = new URL(location, url).toString();
    if (url.startsWith(REDIRECT_URI)) return { res, url };
    res = await browser.fetch(url);
  }
  throw new Error("too many redirects");
}

describe("authorization-code login through the dev interaction pages", () => {
  it("logs alice in with PKCE and returns a verifiable ID token with her email", async () => {
    const browser = new Browser();
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const state = randomBytes(8).toString("hex");
    const nonce = randomBytes(8).toString("hex");

    const auth = new URL(String(discovery.authorization_endpoint));
    auth.search = new URLSearchParams({
      client_id: oidc.clientId,
      response_type: "code",
      scope: "openid email",
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      nonce,
    }).toString();

    // 1. /auth → /interaction/<uid> (login page)
    let step = await follow(browser, await browser.fetch(auth.toString()), auth.toString());
    expect(step.res.status).toBe(200);
    expect(step.url).toMatch(/\/interaction\/[^/]+$/);
    let html = await step.res.text();
    expect(html).toContain('name="prompt" value="login"');
    expect(browser.names()).toEqual(expect.arrayContaining(["_interaction", "_interaction_resume"]));

    // 2. POST the login form → /auth/<uid> → /interaction/<uid2> (consent page)
    let action = formAction(html, step.url);
    let res = await browser.fetch(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "login", login: "alice", password: "anything" }).toString(),
    });
    step = await follow(browser, res, action);
    expect(step.res.status).toBe(200);
    html = await step.res.text();
    expect(html).toContain('name="prompt" value="consent"');
    expect(browser.names()).toContain("_session");

    // 3. POST the consent form → /auth/<uid2> → redirect_uri?code=…
    action = formAction(html, step.url);
    res = await browser.fetch(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "consent" }).toString(),
    });
    step = await follow(browser, res, action);
    expect(step.url.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    const callback = new URL(step.url);
    expect(callback.searchParams.get("state")).toBe(state);
    expect(callback.searchParams.get("iss")).toBe(oidc.issuer);
    const code = callback.searchParams.get("code");
    expect(code).toBeTruthy();

    // 4. exchange the code (client_secret_basic + code_verifier)
    const basic = Buffer.from(`${encodeURIComponent(oidc.clientId)}:${encodeURIComponent(oidc.clientSecret)}`).toString(
      "base64",
    );
    const tokenRes = await fetch(String(discovery.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: code!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      }).toString(),
    });
    const tokens = (await tokenRes.json()) as Record<string, unknown>;
    expect(tokenRes.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens.token_type).toBe("Bearer");
    expect(typeof tokens.id_token).toBe("string");

    // 5. the provider's own ID token verifies against the same JWKS as the minted ones
    const idToken = String(tokens.id_token);
    expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: "RS256", kid: oidc.kid });
    const { payload } = await verify(idToken);
    expect(payload).toMatchObject({
      iss: oidc.issuer,
      aud: "dropsite-test",
      sub: "alice",
      email: "alice@example.test",
      email_verified: true,
      nonce,
    });

    // 6. the code is single-use
    const again = await fetch(String(discovery.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: code!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      }).toString(),
    });
    expect(again.status).toBe(400);
  });

  it("rejects the code exchange with a wrong code_verifier", async () => {
    const browser = new Browser();
    const challenge = createHash("sha256").update("the-real-verifier-the-real-verifier-0123456789").digest("base64url");
    const auth = new URL(String(discovery.authorization_endpoint));
    auth.search = new URLSearchParams({
      client_id: oidc.clientId,
      response_type: "code",
      scope: "openid email",
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s",
      nonce: "n",
    }).toString();
    let step = await follow(browser, await browser.fetch(auth.toString()), auth.toString());
    const forms: Array<Record<string, string>> = [
      { prompt: "login", login: "bob", password: "x" },
      { prompt: "consent" },
    ];
    for (const body of forms) {
      const action = formAction(await step.res.text(), step.url);
      const res = await browser.fetch(action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body).toString(),
      });
      step = await follow(browser, res, action);
    }
    const code = new URL(step.url).searchParams.get("code")!;
    const basic = Buffer.from(`${oidc.clientId}:${oidc.clientSecret}`).toString("base64");
    const res = await fetch(String(discovery.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: "a-wrong-verifier-a-wrong-verifier-0123456789",
      }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("autoConsent", () => {
  it("goes straight from login to the redirect_uri", async () => {
    const h = await startOidcProvider({ redirectUris: [REDIRECT_URI], autoConsent: true });
    try {
      const browser = new Browser();
      const auth = new URL(`${h.issuer}/auth`);
      auth.search = new URLSearchParams({
        client_id: h.clientId,
        response_type: "code",
        scope: "openid email",
        redirect_uri: REDIRECT_URI,
        state: "s",
      }).toString();
      let step = await follow(browser, await browser.fetch(auth.toString()), auth.toString());
      const action = formAction(await step.res.text(), step.url);
      const res = await browser.fetch(action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ prompt: "login", login: "carol", password: "x" }).toString(),
      });
      step = await follow(browser, res, action);
      expect(new URL(step.url).searchParams.get("code")).toBeTruthy();
    } finally {
      await h.close();
    }
  });
});
