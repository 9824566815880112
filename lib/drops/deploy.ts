import { ApiError, upstreamUnavailable } from "../errors";
import { databaseError, withDb } from "../db/errors";
import { isSlug, slugOr404 } from "../input";
import type { AppContext } from "../context";
import { dropChanged } from "../serve/cache";
import { dropUrl } from "../env";
import { newClaimToken, newId, newSlug, sha256Hex } from "../ids";
import { CLAIM_GRACE_SECONDS, isPaid, limits, type Tier } from "../plans";
import { mapLimit } from "../storage/types";
import {
  appendDropFiles,
  countOwnedDrops,
  findDropByOwnerName,
  findDropBySlug,
  insertDropWithFiles,
  isUniqueViolation,
  replaceDropFiles,
  type NewFile,
} from "../db/queries";
import type { DropRow } from "../db/schema";
import type { AppendResponse, DeployResponse } from "../schemas";
import type { Caller } from "../auth/caller";
import type { InputFile } from "../deploy/paths";
import { contentTypeFor } from "./content-type";

// Creating, replacing and appending to drops. Bytes are written first, under a fresh batch
// prefix; rows follow in one transaction. A failure at either step removes that batch, so no
// half drop is visible or left behind, and a replaced drop's old batches go only after commit.

export function tierOf(caller: Pick<Caller, "account">): Tier {
  return caller.account ? caller.account.plan : "anonymous";
}

const PUT_CONCURRENCY = 8;

interface StoredBatch {
  batch: string;
  rows: NewFile[];
}

/** Stores files under `${dropId}/${batch}/` and returns their rows. */
async function storeFiles(ctx: AppContext, dropId: string, files: InputFile[]): Promise<StoredBatch> {
  const batch = newId().slice(0, 8);
  try {
    const rows = await mapLimit(files, PUT_CONCURRENCY, async (f) => {
      const contentType = contentTypeFor(f.path);
      const storageRef = await ctx.storage.put(`${dropId}/${batch}/${f.path}`, f.bytes, contentType);
      return { dropId, path: f.path, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes), contentType, storageRef, batch };
    });
    return { batch, rows };
  } catch (err) {
    await discardPrefix(ctx, `${dropId}/${batch}/`);
    throw upstreamUnavailable("file storage", err);
  }
}

/** Removes bytes written for a request that failed; never masks the original failure. */
async function discardPrefix(ctx: AppContext, prefix: string): Promise<void> {
  try {
    await ctx.storage.deletePrefix(prefix);
  } catch (err) {
    console.error("[deploy] could not remove bytes of a failed deploy", prefix, err);
  }
}

/** Runs the database step of a deploy; on failure the batch's bytes are removed. */
async function commitOrDiscard<T>(ctx: AppContext, prefix: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await discardPrefix(ctx, prefix);
    throw databaseError(err);
  }
}

export interface DeployInput {
  files: InputFile[];
  /** Seconds, or null for no expiry (already resolved for the tier). */
  ttl: number | null;
  /** Named drop (subscribers); already validated. */
  name?: string;
  /** Runs once every check has passed, just before the first byte is stored (the deploy rate budget). */
  beforeStore?: () => Promise<void>;
}

function lifetimes(now: Date, ttl: number | null, anonymous: boolean): { expiresAt: Date | null; purgeAt: Date | null } {
  const expiresAt = ttl === null ? null : new Date(now.getTime() + ttl * 1000);
  const purgeAt = expiresAt && anonymous ? new Date(expiresAt.getTime() + CLAIM_GRACE_SECONDS * 1000) : expiresAt;
  return { expiresAt, purgeAt };
}

/** The most drops the caller's account may hold; null: no cap (or no account). */
export function maxOwnedDrops(caller: Pick<Caller, "account">): number | null {
  return caller.account ? limits[tierOf(caller)].maxDrops : null;
}

/**
 * Refuses a new drop (deployed or claimed) past the plan's maximum drops per account. This is
 * the early check, before bytes are stored; the insert or claim checks again under the
 * account's row lock, which is what makes the cap hold under parallel requests.
 */
export async function checkDropQuota(ctx: AppContext, caller: Pick<Caller, "account">): Promise<void> {
  const account = caller.account;
  const max = maxOwnedDrops(caller);
  if (!account || max === null) return;
  const owned = await withDb(() => countOwnedDrops(ctx.db, account.id));
  if (owned >= max) throw dropQuotaError(caller, owned, max);
}

export function dropQuotaError(caller: Pick<Caller, "account">, owned: number, max: number): ApiError {
  return isPaid(tierOf(caller))
    ? new ApiError("invalid_request", `This account has ${owned} drops, the most its plan allows (${max}).`, { hint: "Delete drops you no longer need.", docs: "limits" })
    : new ApiError("subscription_required", `Free accounts keep at most ${max} drops.`, {
        hint: "Delete drops you no longer need, or upgrade for more.",
        upgrade: true,
        docs: "limits",
      });
}

export async function createDrop(ctx: AppContext, caller: Caller, input: DeployInput): Promise<DeployResponse> {
  if (input.name !== undefined && caller.account) return deployNamed(ctx, caller, { ...input, name: input.name });
  await checkDropQuota(ctx, caller);
  return insertNewDrop(ctx, caller, input);
}

async function insertNewDrop(ctx: AppContext, caller: Caller, input: DeployInput): Promise<DeployResponse> {
  const now = new Date(ctx.now());
  const id = newId();
  const slug = newSlug();
  const anonymous = caller.account === null;
  await input.beforeStore?.();
  const { rows } = await storeFiles(ctx, id, input.files);
  const { expiresAt, purgeAt } = lifetimes(now, input.ttl, anonymous);
  const claimToken = anonymous ? newClaimToken() : undefined;
  const maxOwned = maxOwnedDrops(caller);
  await commitOrDiscard(ctx, `${id}/`, async () => {
    const capped = await insertDropWithFiles(
      ctx.db,
      {
        id,
        slug,
        ownerId: caller.account?.id ?? null,
        name: input.name ?? null,
        fileCount: rows.length,
        totalBytes: rows.reduce((n, r) => n + r.size, 0),
        claimTokenHash: claimToken ? sha256Hex(claimToken) : null,
        createdAt: now,
        updatedAt: now,
        expiresAt,
        purgeAt,
      },
      rows,
      maxOwned,
    );
    if (capped && maxOwned !== null) throw dropQuotaError(caller, capped.capped, maxOwned);
  });
  await dropChanged(ctx, { id, slug }, "deploy");
  const response: DeployResponse = {
    slug,
    url: dropUrl(slug, ctx.env),
    files: rows.map((r) => r.path),
    plan: caller.account?.plan ?? "free",
    expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
  if (input.name !== undefined) {
    response.name = input.name;
    response.replaced = false;
  }
  if (claimToken) response.claim_token = claimToken;
  return response;
}

// Same name, same account: the content is replaced atomically; slug and URL stay.
async function deployNamed(ctx: AppContext, caller: Caller, input: DeployInput & { name: string }): Promise<DeployResponse> {
  const account = caller.account!;
  const lookup = () =>
    withDb(() => findDropByOwnerName(ctx.db, account.id, input.name));
  let existing = await lookup();
  if (!existing) {
    await checkDropQuota(ctx, caller);
    try {
      return await insertNewDrop(ctx, caller, input);
    } catch (err) {
      // A parallel deploy of the same new name won the insert: replace its content instead.
      if (!(err instanceof ApiError && isUniqueViolation(err.cause))) throw err;
      existing = await lookup();
      if (!existing) throw err;
    }
  }
  return replaceDrop(ctx, caller, existing, input);
}

async function replaceDrop(ctx: AppContext, caller: Caller, drop: DropRow, input: DeployInput & { name: string }): Promise<DeployResponse> {
  const now = new Date(ctx.now());
  await input.beforeStore?.();
  const { batch, rows } = await storeFiles(ctx, drop.id, input.files);
  const { expiresAt, purgeAt } = lifetimes(now, input.ttl, false);
  const result = await commitOrDiscard(ctx, `${drop.id}/${batch}/`, () => replaceDropFiles(ctx.db, drop.id, rows, { updatedAt: now, expiresAt, purgeAt }));
  if (!result) {
    await discardPrefix(ctx, `${drop.id}/${batch}/`);
    throw new ApiError("conflict", "The drop was deleted while it was being replaced.", { hint: "Deploy again." });
  }
  await dropChanged(ctx, drop, "replace");
  for (const old of result.oldBatches) if (old !== batch) await discardPrefix(ctx, `${drop.id}/${old}/`);
  return {
    slug: drop.slug,
    url: dropUrl(drop.slug, ctx.env),
    files: rows.map((r) => r.path),
    plan: caller.account!.plan,
    expires_at: expiresAt ? expiresAt.toISOString() : null,
    name: input.name,
    replaced: true,
  };
}

// POST /deploy/{slug}: subscribers add files to a drop they own.
export async function appendToDrop(ctx: AppContext, caller: Caller, slug: string, files: InputFile[]): Promise<AppendResponse> {
  const account = caller.account;
  if (!account) throw new ApiError("auth_required", "Appending needs an account credential.", { docs: "authentication" });
  const tier = tierOf(caller);
  const maxTotal = limits[tier].filesPerDrop;
  const absent = () => new ApiError("not_found", `No drop ${isSlug(slug) ? slug : "with that slug"} in this account.`);
  slugOr404(slug, absent);
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  if (!drop || drop.ownerId !== account.id || (drop.expiresAt && drop.expiresAt.getTime() <= ctx.now())) throw absent();
  if (drop.fileCount + files.length > maxTotal) throw totalError(drop.fileCount, files.length, maxTotal);
  const now = new Date(ctx.now());
  const { batch, rows } = await storeFiles(ctx, drop.id, files);
  const outcome = await commitOrDiscard(ctx, `${drop.id}/${batch}/`, () => appendDropFiles(ctx.db, drop.id, rows, maxTotal, now));
  if (!outcome.ok) {
    await discardPrefix(ctx, `${drop.id}/${batch}/`);
    if (outcome.reason === "too_many") throw totalError(outcome.total, files.length, maxTotal);
    if (outcome.reason === "exists") {
      throw new ApiError("invalid_request", `The drop already has a file at ${JSON.stringify(outcome.path)}.`, {
        hint: "Append adds new paths only; redeploy the named drop to replace content.",
        docs: "append",
      });
    }
    throw new ApiError("not_found", `No drop ${slug} in this account.`);
  }
  await dropChanged(ctx, drop, "append");
  return {
    slug: drop.slug,
    url: dropUrl(drop.slug, ctx.env),
    files: rows.map((r) => r.path),
    total_files: outcome.drop.fileCount,
    plan: account.plan,
    expires_at: outcome.drop.expiresAt ? outcome.drop.expiresAt.toISOString() : null,
  };
}

function totalError(current: number, adding: number, max: number): ApiError {
  return new ApiError("payload_too_large", `The drop has ${current} files; adding ${adding} would pass the limit of ${max} files per drop.`, {
    hint: "Deploy the rest as another drop.",
    docs: "limits",
  });
}
