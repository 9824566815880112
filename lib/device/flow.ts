import { randomBytes, randomInt } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { withDb } from "../db/errors";
import { clientAddress } from "../ratelimit/address";
import { sha256Hex } from "../ids";
import { limits } from "../plans";
import { isSlug } from "../input";
import { CLAIM_TOKEN_PATTERN } from "../patterns";
import { claimDropByHash } from "../drops/manage";
import { deviceAuthorizeBodySchema } from "../schemas";
import { findAccount, insertKeyCapped } from "../db/accounts";
import {
  decideDeviceCode,
  denyDeviceCode,
  findDeviceCode,
  findDeviceCodeByUserCode,
  insertDeviceCode,
  purgeDeviceCodes,
  recordDevicePoll,
  setDeviceClaims,
  useApprovedDeviceCode,
} from "../db/device";
import { sqlState } from "../db/errors";
import type { AccountRow, DeviceClaim, DeviceCodeRow } from "../db/schema";
import { toApiError } from "../errors";
import { newApiKey } from "../auth/keys";
import { enforceLimit } from "../ratelimit/guard";

// Device-code onboarding (RFC 8628) for agents without a key. The agent asks (authorize), shows
// the person a URL and a short code, and polls (token). The person, logged in on the app,
// approves or denies on /device. The first poll after approval mints an API key for that
// account and closes the request: one use. Requests expire after DEVICE_TTL_SECONDS.

export const DEVICE_TTL_SECONDS = 600;
export const DEVICE_INTERVAL_SECONDS = 5;
/** Added to the interval on every poll that comes too early (RFC 8628 §3.5). */
const SLOW_DOWN_STEP = 5;
// Rate limits: deviceAuthorize (per address) and deviceApprove (per account) in lib/ratelimit/policy.ts.

// RFC 8628 §6.1: consonants only (no vowels: no words), no look-alikes; 20^8 ≈ 2.6·10^10 codes.
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

function newUserCode(): string {
  let s = "";
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** What a person types: case, spaces and the hyphen do not matter. */
export function normalizeUserCode(raw: string): string | null {
  const s = raw.toUpperCase().replace(/[\s-]/g, "");
  if (s.length !== 8 || [...s].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/**
 * The anonymous drops an authorisation asks to claim, checked for form only (whether each can
 * be claimed is decided, and reported, on approval); only the SHA-256 of each token is kept.
 */
function claimsOf(input: unknown): DeviceClaim[] {
  const parsed = deviceAuthorizeBodySchema.safeParse(input ?? {});
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The device authorisation", {
      hint: 'Send {} or {"claims": [{"slug": "…", "claim_token": "ct_…"}]}.',
      docs: DEVICE_DOCS,
    });
  const bySlug = new Map<string, DeviceClaim>();
  for (const c of parsed.data.claims ?? []) {
    if (!isSlug(c.slug) || !CLAIM_TOKEN_PATTERN.test(c.claim_token)) {
      throw new ApiError(
        "invalid_request",
        `${JSON.stringify(c.slug.slice(0, 100))} is not the slug and claim_token of an anonymous deploy.`,
        { hint: "Pass the slug and claim_token exactly as the deploy returned them.", docs: DEVICE_DOCS },
      );
    }
    bySlug.set(c.slug, { slug: c.slug, tokenHash: sha256Hex(c.claim_token) });
  }
  return [...bySlug.values()];
}

/** POST /device/authorize and the device_authorize tool; `input` is the body ({claims?}). */
export async function authorizeDevice(
  ctx: AppContext,
  req: Request,
  input: unknown = {},
): Promise<DeviceAuthorization> {
  await enforceLimit(ctx, "deviceAuthorize", clientAddress(req, ctx.env));
  const claims = claimsOf(input);
  const now = ctx.now();
  // Expired requests are only kept for their expired_token answer; drop the old ones here.
  await withDb(() => purgeDeviceCodes(ctx.db, new Date(now - DEVICE_TTL_SECONDS * 1000)));
  const deviceCode = randomBytes(32).toString("base64url");
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    const row = {
      id: sha256Hex(deviceCode),
      userCode,
      createdAt: new Date(now),
      expiresAt: new Date(now + DEVICE_TTL_SECONDS * 1000),
      intervalSeconds: DEVICE_INTERVAL_SECONDS,
      claims,
    };
    try {
      await withDb(() => insertDeviceCode(ctx.db, row));
    } catch (err) {
      // A user-code collision (unique violation): another code.
      if (attempt < 3 && sqlState(err) === "23505") continue;
      throw err;
    }
    const uri = `${ctx.env.BASE_URL}/device`;
    return {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: uri,
      verification_uri_complete: `${uri}?code=${encodeURIComponent(userCode)}`,
      expires_in: DEVICE_TTL_SECONDS,
      interval: DEVICE_INTERVAL_SECONDS,
    };
  }
}

export interface DeviceClaimOutcome {
  slug: string;
  claimed: boolean;
  url?: string;
  code?: string;
  error?: string;
}

const outcomeOf = (c: DeviceClaim): DeviceClaimOutcome =>
  c.outcome === undefined
    ? { slug: c.slug, claimed: false, code: "not_found", error: "Not decided." }
    : c.outcome.claimed
      ? { slug: c.slug, claimed: true, url: c.outcome.url }
      : { slug: c.slug, claimed: false, code: c.outcome.code, error: c.outcome.error };

export interface DeviceToken {
  /** The sp_ key, under the RFC 6749 name as well for OAuth-minded clients. */
  access_token: string;
  token_type: "Bearer";
  api_key: string;
  key_id: string;
  account_id: string;
  plan: AccountRow["plan"];
  /** The anonymous drops asked for, and whether each moved into the account on approval. */
  claims: DeviceClaimOutcome[];
}

const DEVICE_DOCS = "device-authorization";

function expired(): ApiError {
  return new ApiError("expired_token", "This device authorisation has expired or was already used.", {
    hint: "Start again with device_authorize (POST /device/authorize) and have the user approve the new code.",
    docs: DEVICE_DOCS,
  });
}

/** POST /device/token and the device_token tool. */
export async function pollDevice(ctx: AppContext, deviceCode: string): Promise<DeviceToken> {
  const now = ctx.now();
  const row = await withDb(() => findDeviceCode(ctx.db, sha256Hex(deviceCode)));
  if (!row || row.status === "used" || row.expiresAt.getTime() <= now) throw expired();
  if (row.status === "denied") {
    throw new ApiError("access_denied", "The user denied this device authorisation.", {
      hint: "Ask the user whether to try again; if so, start over with device_authorize.",
      docs: DEVICE_DOCS,
    });
  }
  if (row.lastPolledAt && now - row.lastPolledAt.getTime() < row.intervalSeconds * 1000) {
    const interval = row.intervalSeconds + SLOW_DOWN_STEP;
    await withDb(() => recordDevicePoll(ctx.db, row.id, new Date(now), interval));
    throw new ApiError("slow_down", `Polling too fast: wait at least ${interval} seconds between polls.`, {
      hint: `Wait ${interval} seconds, then poll again.`,
      headers: { "Retry-After": String(interval) },
      docs: DEVICE_DOCS,
    });
  }
  if (row.status === "pending") {
    await withDb(() => recordDevicePoll(ctx.db, row.id, new Date(now)));
    throw new ApiError("authorization_pending", "The user has not approved this device yet.", {
      hint: `Ask the user to open the verification URL and approve code ${row.userCode}; poll again in ${row.intervalSeconds} seconds.`,
      headers: { "Retry-After": String(row.intervalSeconds) },
      docs: DEVICE_DOCS,
    });
  }
  return issueKey(ctx, row, now);
}

/** Approved → used, exactly once (the status update is the lock), then a key for the account. */
async function issueKey(ctx: AppContext, row: DeviceCodeRow, now: number): Promise<DeviceToken> {
  const claimed = await withDb(() => useApprovedDeviceCode(ctx.db, row.id, new Date(now)));
  const accountId = claimed?.accountId;
  if (!accountId) throw expired();
  const account = await withDb(() => findAccount(ctx.db, accountId));
  if (!account) throw expired();
  const plan = account.plan;
  const key = newApiKey();
  // Counted and inserted under the account's row lock, like POST /keys.
  const inserted = await withDb(() =>
    insertKeyCapped(
      ctx.db,
      { id: key.keyId, accountId, prefix: key.prefix, note: "device authorisation", createdAt: new Date(now) },
      limits[plan].maxKeys,
    ),
  );
  if (!inserted) {
    throw new ApiError("invalid_request", `This account already has ${limits[plan].maxKeys} live keys.`, {
      hint: "The user revokes a key on the dashboard; then start over with device_authorize.",
      docs: "keys",
      details: { limit: "max_keys", allowed: limits[plan].maxKeys, plan },
    });
  }
  return {
    access_token: key.apiKey,
    token_type: "Bearer",
    api_key: key.apiKey,
    key_id: key.keyId,
    account_id: accountId,
    plan,
    claims: claimed.claims.map(outcomeOf),
  };
}

export interface DevicePending {
  user_code: string;
  expires_at: string;
  /** Slugs of the anonymous drops the agent asks to move into the account. */
  claims: string[];
}

/** The pending request of a user code, for the approval page; null when there is none. */
export async function findPendingDevice(ctx: AppContext, rawCode: string): Promise<DevicePending | null> {
  const code = normalizeUserCode(rawCode);
  if (!code) return null;
  const row = await withDb(() => findDeviceCodeByUserCode(ctx.db, code));
  if (!row || row.status !== "pending" || row.expiresAt.getTime() <= ctx.now()) return null;
  return { user_code: row.userCode, expires_at: row.expiresAt.toISOString(), claims: row.claims.map((c) => c.slug) };
}

export interface DeviceDecisionResult {
  user_code: string;
  status: "approved" | "denied";
  claims: DeviceClaimOutcome[];
}

/**
 * The person's decision on /device, as their account. Approving also claims the anonymous
 * drops the agent asked for, each with the rules of POST /claim; one that cannot be claimed
 * (already claimed, expired, over the plan's cap) is reported, and the approval stands.
 */
export async function decideDevice(
  ctx: AppContext,
  account: AccountRow,
  rawCode: string,
  approve: boolean,
): Promise<DeviceDecisionResult> {
  await enforceLimit(ctx, "deviceApprove", account.id);
  const code = normalizeUserCode(rawCode);
  const notFound = () =>
    new ApiError("not_found", "No pending device request with that code.", {
      hint: "Check the code shown by your agent; codes expire after 10 minutes.",
      docs: DEVICE_DOCS,
    });
  if (!code) throw notFound();
  const row = await withDb(() => decideDeviceCode(ctx.db, code, approve ? "approved" : "denied", account.id));
  if (!row || row.expiresAt.getTime() <= ctx.now()) {
    if (row) await withDb(() => denyDeviceCode(ctx.db, row.id));
    throw notFound();
  }
  if (!approve) return { user_code: row.userCode, status: "denied", claims: [] };
  const claims: DeviceClaim[] = [];
  for (const c of row.claims) {
    try {
      const r = await claimDropByHash(ctx, account, c.slug, c.tokenHash);
      claims.push({ ...c, outcome: { claimed: true, url: r.url } });
    } catch (err) {
      const e = toApiError(err);
      claims.push({ ...c, outcome: { claimed: false, code: e.code, error: e.message } });
    }
  }
  if (claims.length > 0) await withDb(() => setDeviceClaims(ctx.db, row.id, claims));
  return { user_code: row.userCode, status: "approved", claims: claims.map(outcomeOf) };
}
