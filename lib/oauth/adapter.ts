import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db/client";
import { sha256Hex } from "../ids";
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
// refresh and registration tokens, whose id is their secret value) are stored by SHA-256 only.

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
  ) {}

  /** The row id of a model instance: the SHA-256 of a credential, else the id itself. */
  private key(id: string): string {
    return SECRET_MODELS.has(this.model) ? sha256Hex(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
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
    return this.payloadOf(await findOauthModel(this.db, this.model, this.key(id)));
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
