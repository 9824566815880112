// Minimal type declarations for `oidc-provider` 9.x (the package ships no types and
// @types/oidc-provider lags behind). Only the surface the test harness and lib/oauth use is declared.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  import type { JWK } from "jose";

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris?: string[];
    post_logout_redirect_uris?: string[];
    response_types?: string[];
    grant_types?: string[];
    token_endpoint_auth_method?:
      "client_secret_basic" | "client_secret_post" | "client_secret_jwt" | "private_key_jwt" | "none";
    id_token_signed_response_alg?: string;
    application_type?: "web" | "native";
    scope?: string;
  }

  export interface AccountClaims {
    sub: string;
    [claim: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(
      use: string,
      scope: string,
      claims: Record<string, unknown>,
      rejected: string[],
    ): AccountClaims | Promise<AccountClaims>;
  }

  export interface Session {
    accountId?: string;
    grantIdFor(clientId: string): string | undefined;
  }

  export interface Client {
    clientId: string;
    redirectUris?: string[];
    clientName?: string;
    clientUri?: string;
    grantTypeAllowed(type: string): boolean;
    metadata(): Record<string, unknown>;
  }

  export interface AdapterPayload {
    accountId?: string;
    clientId?: string;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
    exp?: number;
    [key: string]: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface AccessToken {
    jti: string;
    accountId: string;
    clientId: string;
    grantId: string;
    aud?: string | string[];
    scope?: string;
    exp: number;
  }

  export interface Interaction {
    uid: string;
    exp: number;
    returnTo: string;
    prompt: {
      name: string;
      reasons: string[];
      details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> } & Record<
        string,
        unknown
      >;
    };
    params: Record<string, unknown> & { client_id?: string };
    session?: { accountId?: string; uid?: string };
    result?: Record<string, unknown>;
    save(ttl: number): Promise<string>;
  }

  export interface ResourceServer {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: "opaque" | "jwt";
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidRedirectUri: new (description?: string) => Error;
    InvalidClientMetadata: new (description?: string) => Error;
  };

  export interface Grant {
    jti?: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { accountId?: string; clientId?: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface OIDCContext {
    provider: Provider;
    client?: Client;
    session?: Session;
    result?: { consent?: { grantId?: string }; login?: { accountId?: string } };
  }

  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    method: string;
    path: string;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface CookieOptions {
    httpOnly?: boolean;
    sameSite?: "lax" | "strict" | "none";
    secure?: boolean;
    signed?: boolean;
    maxAge?: number;
    path?: string;
    domain?: string;
  }

  export type FindAccount = (
    ctx: KoaContextWithOIDC,
    sub: string,
    token?: unknown,
  ) => Account | undefined | Promise<Account | undefined>;

  export interface Configuration {
    clients?: ClientMetadata[];
    clientDefaults?: Partial<ClientMetadata>;
    claims?: Record<string, null | string[]>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    clockTolerance?: number;
    responseTypes?: string[];
    cookies?: {
      keys?: Array<string | Buffer>;
      names?: { session?: string; interaction?: string; resume?: string };
      long?: CookieOptions;
      short?: CookieOptions;
    };
    features?: {
      devInteractions?: { enabled?: boolean };
      rpInitiatedLogout?: { enabled?: boolean };
      introspection?: { enabled?: boolean };
      revocation?: { enabled?: boolean };
      userinfo?: { enabled?: boolean };
      registration?: { enabled?: boolean; initialAccessToken?: boolean };
      resourceIndicators?: {
        enabled?: boolean;
        defaultResource?: (
          ctx: KoaContextWithOIDC,
          client: Client,
          oneOf?: string[],
        ) => string | string[] | undefined | Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: KoaContextWithOIDC, model: unknown) => boolean | Promise<boolean>;
        getResourceServerInfo?: (
          ctx: KoaContextWithOIDC,
          resourceIndicator: string,
          client: Client,
        ) => ResourceServer | Promise<ResourceServer>;
      };
    };
    adapter?: (name: string) => Adapter;
    extraClientMetadata?: {
      properties: string[];
      validator?: (
        ctx: KoaContextWithOIDC,
        key: string,
        value: unknown,
        metadata: Record<string, unknown>,
      ) => void | Promise<void>;
    };
    interactions?: { url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => string | Promise<string> };
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: Client, code: unknown) => boolean | Promise<boolean>;
    renderError?: (
      ctx: KoaContextWithOIDC & { type: string; body: string },
      out: Record<string, string>,
      error: Error,
    ) => void | Promise<void>;
    findAccount?: FindAccount;
    jwks?: { keys: JWK[] };
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: Client) => boolean };
    ttl?: Record<string, number>;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Grant | undefined | Promise<Grant | undefined>;
    routes?: Record<string, string>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    readonly Grant: GrantConstructor;
    readonly Client: { find(id: string): Promise<Client | undefined> };
    readonly Interaction: { find(id: string): Promise<Interaction | undefined> };
    readonly AccessToken: { find(value: string): Promise<AccessToken | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    urlFor(name: string, opt?: Record<string, unknown>): string;
    use(middleware: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default Provider;
}
