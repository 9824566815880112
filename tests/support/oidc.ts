import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  base64url,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";
import Provider, {
  type Account,
  type ClientMetadata,
  type Configuration,
  type KoaContextWithOIDC,
} from "oidc-provider";
import { afterAll, beforeAll } from "vitest";
import { suiteContext, type TestContext } from "./context";
import { registerSecret } from "./secrets";

// A real OpenID provider (`oidc-provider` 9) run in-process on a spare loopback port, for tests:
//  - mintIdToken() signs ID tokens with the provider's own RS256 key (the one served at its JWKS
//    endpoint), so a verifier using discovery + JWKS accepts them; hostile-token helpers craft the
//    classic forgeries (alg none, HS256 keyed with the public key, a foreign key with the same kid);
//  - the client `dropsite-test` / `dropsite-test-secret` can log in through the provider's dev
//    interaction pages (any login name and password; account `<login>`, email `<login>@example.test`).

export const DEFAULT_CLIENT_ID = "dropsite-test";
export const DEFAULT_CLIENT_SECRET = "dropsite-test-secret";
export const DEFAULT_REDIRECT_URIS = ["http://localhost:3000/api/auth/callback/oidc"];

export type RsaAlg = "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512";

export interface OidcClientOptions {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  /** Defaults to client_secret_basic when a secret is given, else none (public client, PKCE required). */
  token_endpoint_auth_method?: ClientMetadata["token_endpoint_auth_method"];
  post_logout_redirect_uris?: string[];
}

export interface StartOidcProviderOptions {
  /** Redirect URIs of the default client `dropsite-test` (default: DEFAULT_REDIRECT_URIS). */
  redirectUris?: string[];
  /** Extra clients; one with client_id `dropsite-test` replaces the default client. */
  clients?: OidcClientOptions[];
  /** Skip the consent page: after login, a grant for `openid email profile` is created automatically. */
  autoConsent?: boolean;
}

export interface MintIdTokenOptions {
  sub: string;
  /** Adds `email` (and `email_verified`, default true). Omitted when not given. */
  email?: string;
  emailVerified?: boolean;
  name?: string;
  /** Default: the default client id `dropsite-test`. */
  aud?: string | string[];
  /** Default: the provider's issuer. */
  iss?: string;
  /** Issued-at, epoch seconds or a Date (default: now). */
  iat?: number | Date;
  /** Lifetime in seconds counted from iat (default 3600). Ignored when `exp` is given. */
  expiresIn?: number;
  /** Explicit expiry, epoch seconds or a Date. */
  exp?: number | Date;
  nbf?: number | Date;
  nonce?: string;
  /** Signing algorithm, always with the provider's RSA key (default RS256). */
  alg?: RsaAlg;
  /** Header kid (default: the provider key's kid). */
  kid?: string;
  /** Extra claims merged last (they override the ones above). */
  claims?: Record<string, unknown>;
}

export interface OidcHarness {
  /** `http://localhost:<port>` */
  issuer: string;
  port: number;
  /** `<issuer>/.well-known/openid-configuration` */
  discoveryUrl: string;
  /** `<issuer>/jwks` */
  jwksUri: string;
  clientId: string;
  clientSecret: string;
  /** Kid of the provider's signing key. */
  kid: string;
  /** Public JWK of the provider's signing key (as served at jwksUri). */
  publicJwk: JWK;
  /** The underlying oidc-provider instance. */
  provider: Provider;
  /** The claim set mintIdToken would sign (for feeding the hostile-token helpers). */
  idTokenClaims(opts: MintIdTokenOptions): JWTPayload;
  /** A real ID token signed with the provider's key. */
  mintIdToken(opts: MintIdTokenOptions): Promise<string>;
  /** `alg: none`, empty signature, header kid = the provider's kid. */
  unsignedToken(claims: JWTPayload): string;
  /** HS256 with the provider's public key as HMAC secret (key-confusion attack). Default form: the SPKI PEM text. */
  hs256WithPublicKey(claims: JWTPayload, form?: "pem" | "jwk"): Promise<string>;
  /** RS256 signed by a freshly generated RSA key that is not published, header kid = the provider's kid. */
  foreignKeyToken(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

const toEpoch = (v: number | Date): number => (v instanceof Date ? Math.floor(v.getTime() / 1000) : v);

/** An `alg: none` JWT (header `{alg:'none', typ:'JWT'}` plus optional extra header fields, empty signature). */
export function unsignedToken(claims: JWTPayload, header: Record<string, unknown> = {}): string {
  const enc = (o: unknown) => base64url.encode(JSON.stringify(o));
  return `${enc({ alg: "none", typ: "JWT", ...header })}.${enc(claims)}.`;
}

export async function startOidcProvider(opts: StartOidcProviderOptions = {}): Promise<OidcHarness> {
  // The signing key: generated with jose, handed to the provider as its JWKS, and reused by mintIdToken.
  const kid = `dropsite-test-${randomBytes(4).toString("hex")}`;
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const publicPem = await exportSPKI(publicKey);
  const signingKeys = new Map<RsaAlg, CryptoKey>([["RS256", privateKey]]);
  const keyFor = async (alg: RsaAlg): Promise<CryptoKey> => {
    let key = signingKeys.get(alg);
    if (!key) {
      const { alg: _alg, use: _use, key_ops: _ops, ...bare } = privateJwk;
      key = (await importJWK(bare, alg)) as CryptoKey;
      signingKeys.set(alg, key);
    }
    return key;
  };

  // Listen first (port 0), then build the provider: the issuer needs the port.
  const app: { handler?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const server: Server = createServer((req, res) => {
    if (app.handler) app.handler(req, res);
    else {
      res.statusCode = 503;
      res.end("starting");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://localhost:${port}`;

  const toClientMetadata = (c: OidcClientOptions): ClientMetadata => ({
    client_id: c.client_id,
    ...(c.client_secret !== undefined ? { client_secret: c.client_secret } : {}),
    redirect_uris: c.redirect_uris,
    ...(c.post_logout_redirect_uris ? { post_logout_redirect_uris: c.post_logout_redirect_uris } : {}),
    response_types: ["code"],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method:
      c.token_endpoint_auth_method ?? (c.client_secret !== undefined ? "client_secret_basic" : "none"),
    id_token_signed_response_alg: "RS256",
  });
  const defaultClient: OidcClientOptions = {
    client_id: DEFAULT_CLIENT_ID,
    client_secret: DEFAULT_CLIENT_SECRET,
    redirect_uris: opts.redirectUris ?? DEFAULT_REDIRECT_URIS,
  };
  const extra = opts.clients ?? [];
  const clients = [...(extra.some((c) => c.client_id === DEFAULT_CLIENT_ID) ? [] : [defaultClient]), ...extra].map(
    toClientMetadata,
  );
  const defaultClientSecret =
    clients.find((c) => c.client_id === DEFAULT_CLIENT_ID)?.client_secret ?? DEFAULT_CLIENT_SECRET;

  const findAccount = (_ctx: KoaContextWithOIDC, id: string): Account => ({
    accountId: id,
    claims: () => ({ sub: id, email: `${id}@example.test`, email_verified: true, name: id }),
  });

  const configuration: Configuration = {
    clients,
    jwks: { keys: [privateJwk] },
    findAccount,
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
    },
    scopes: ["openid", "email", "profile"],
    // Put the scope-derived claims (email) in the ID token itself, not only at userinfo.
    conformIdTokenClaims: false,
    responseTypes: ["code"],
    // PKCE (S256) is accepted when sent; required only for public clients (oidc-provider's default).
    cookies: {
      keys: [randomBytes(32).toString("hex")],
      // Plain http on localhost: no Secure flag (oidc-provider only adds it when the request is https).
      long: { httpOnly: true, sameSite: "lax", secure: false },
      short: { httpOnly: true, sameSite: "lax", secure: false },
    },
    features: {
      devInteractions: { enabled: true },
    },
    // Explicit lifetimes (seconds) also silence oidc-provider's "default ttl function called" notices.
    ttl: { AccessToken: 3600, AuthorizationCode: 600, Grant: 86400, IdToken: 3600, Interaction: 3600, Session: 86400 },
  };
  if (opts.autoConsent) {
    configuration.loadExistingGrant = async (ctx) => {
      const { client, session, result, provider: p } = ctx.oidc;
      if (!client) return undefined;
      const grantId = result?.consent?.grantId ?? session?.grantIdFor(client.clientId);
      if (grantId) return p.Grant.find(grantId);
      if (!session?.accountId) return undefined;
      const grant = new p.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope("openid email profile");
      grant.addOIDCClaims(["email", "email_verified", "name"]);
      await grant.save();
      return grant;
    };
  }

  const provider = new Provider(issuer, configuration);
  provider.proxy = false;
  app.handler = provider.callback();

  const idTokenClaims = (o: MintIdTokenOptions): JWTPayload => {
    const iat = o.iat !== undefined ? toEpoch(o.iat) : Math.floor(Date.now() / 1000);
    const exp = o.exp !== undefined ? toEpoch(o.exp) : iat + (o.expiresIn ?? 3600);
    const claims: JWTPayload = {
      iss: o.iss ?? issuer,
      sub: o.sub,
      aud: o.aud ?? DEFAULT_CLIENT_ID,
      iat,
      exp,
    };
    if (o.nbf !== undefined) claims.nbf = toEpoch(o.nbf);
    if (o.nonce !== undefined) claims.nonce = o.nonce;
    if (o.email !== undefined) {
      claims.email = o.email;
      claims.email_verified = o.emailVerified ?? true;
    } else if (o.emailVerified !== undefined) claims.email_verified = o.emailVerified;
    if (o.name !== undefined) claims.name = o.name;
    return { ...claims, ...(o.claims ?? {}) };
  };

  const harness: OidcHarness = {
    issuer,
    port,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUri: `${issuer}/jwks`,
    clientId: DEFAULT_CLIENT_ID,
    clientSecret: defaultClientSecret,
    kid,
    publicJwk,
    provider,
    idTokenClaims,
    async mintIdToken(o) {
      const alg = o.alg ?? "RS256";
      const token = await new SignJWT(idTokenClaims(o))
        .setProtectedHeader({ alg, kid: o.kid ?? kid, typ: "JWT" })
        .sign(await keyFor(alg));
      registerSecret("ID token", token);
      return token;
    },
    unsignedToken: (claims) => unsignedToken(claims, { kid }),
    async hs256WithPublicKey(claims, form = "pem") {
      const secret = new TextEncoder().encode(form === "pem" ? publicPem : JSON.stringify(publicJwk));
      return new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid, typ: "JWT" }).sign(secret);
    },
    async foreignKeyToken(claims) {
      const foreign = await generateKeyPair("RS256");
      return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid, typ: "JWT" }).sign(foreign.privateKey);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return harness;
}

/**
 * A suite's OpenID provider and a test context whose login trusts it (OIDC_ISSUER and
 * OIDC_CLIENT_ID, beside `vars`), both opened in beforeAll and closed in afterAll. Like
 * suiteContext's, the returned objects are for hooks and tests, not the file's top level.
 */
export function oidcSuite(
  vars: Record<string, string> = {},
  opts: { freshLimiter?: boolean } = {},
): { t: TestContext; oidc: OidcHarness } {
  let harness: OidcHarness | undefined;
  beforeAll(async () => {
    harness = await startOidcProvider();
  });
  afterAll(async () => {
    await harness?.close();
  });
  const opened = (): OidcHarness => {
    if (!harness) throw new Error("The OpenID provider starts in beforeAll: use it in hooks and tests.");
    return harness;
  };
  const t = suiteContext(() => ({ OIDC_ISSUER: opened().issuer, OIDC_CLIENT_ID: opened().clientId, ...vars }), opts);
  return { t, oidc: new Proxy({} as OidcHarness, { get: (_, key) => Reflect.get(opened(), key) }) };
}
