import { createHmac } from "node:crypto";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { derivedKey } from "../secret";
import {
  consumeOauthModel,
  destroyOauthGrantRows,
  destroyOauthModel,
  findOauthModel,
  findOauthModelBy,
  upsertOauthModel,
} from "../db/oauth";

// oidc-provider's storage interface over the oauth_models table (PGlite and PostgreSQL alike).
// Each model instance is one row; the columns beside the payload (grant, uid, user code,
// account, client, expiry) are what lookups and revocation use. Credentials (codes, access,
// refresh and registration tokens, whose id is their secret value) are stored by a keyed hash
// only (HMAC-SHA256 under a key derived from the server secret): a read of the database holds
// no live token, and without the secret not even a value to test guesses against.

const PURPOSE = "oauth-credential";

// Derived once per configuration (on localhost the secret is read from a file).
const keys = new WeakMap<Env, Buffer>();

/** The row id of a credential: HMAC-SHA256 (hex) of its value under the derived key. */
export function credentialRowId(e: Env, value: string): string {
  let key = keys.get(e);
  if (!key) keys.set(e, (key = derivedKey(PURPOSE, e)));
  return createHmac("sha256", key).update(value).digest("hex");
}

const SECRET_MODELS = new Set([
  "AccessToken",
  "RefreshToken",
  "AuthorizationCode",
  "RegistrationAccessToken",
  "ClientCredentials",
  "DeviceCode",
]);

export class DbAdapter implements Adapter {
  constructor(
    private readonly db: Db,
    private readonly model: string,
    private readonly env: Env,
  ) {}

  /** The row id of a model instance: the keyed hash of a credential, else the id itself. */
  private key(id: string): string {
    return SECRET_MODELS.has(this.model) ? credentialRowId(this.env, id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    // A credential's payload carries its value as `jti`: kept out of the row, given back by find().
    if (SECRET_MODELS.has(this.model)) {
      const { jti: _jti, ...rest } = payload;
      payload = rest;
    }
    const accountId = typeof payload.accountId === "string" ? payload.accountId : null;
    const clientId = typeof payload.clientId === "string" ? payload.clientId : this.model === "Client" ? id : null;
    await upsertOauthModel(this.db, {
      model: this.model,
      id: this.key(id),
      payload,
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      userCode: payload.userCode ?? null,
      // A client row belongs to no account; every other row of an account goes with it.
      accountId: this.model === "Client" ? null : accountId,
      clientId,
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = this.payloadOf(await findOauthModel(this.db, this.model, this.key(id)));
    return payload && SECRET_MODELS.has(this.model) ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.payloadOf(await findOauthModelBy(this.db, this.model, "uid", uid));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.payloadOf(await findOauthModelBy(this.db, this.model, "userCode", userCode));
  }

  async consume(id: string): Promise<void> {
    await consumeOauthModel(this.db, this.model, this.key(id), new Date());
  }

  async destroy(id: string): Promise<void> {
    await destroyOauthModel(this.db, this.model, this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await destroyOauthGrantRows(this.db, [grantId]);
  }

  private payloadOf(
    row: { payload: Record<string, unknown>; expiresAt: Date | null; consumedAt: Date | null } | undefined,
  ): AdapterPayload | undefined {
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
    const payload = row.payload as AdapterPayload;
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}
