import { ratePolicies } from "../ratelimit/policy";
import type { AppContext } from "../context";
import { dropChanged } from "../serve/cache";
import { previewUrl } from "../serve/host";
import { detachHostnames } from "../domains/detach";
import { dropUrl } from "../env";
import { ApiError, upstreamUnavailable } from "../errors";
import { withDb } from "../db/errors";
import { isPlainText, pageIntegers, slugOr404 } from "../input";
import { CLAIM_TOKEN_PATTERN } from "../patterns";
import { sha256Hex } from "../ids";
import { isPaid, limits } from "../plans";
import { ruleCounts } from "../rules/types";
import { disabledField } from "../safety/disabled";
import { claimDropRow, deleteDropRow, findDropBySlug, listDropFiles, listOwnedDrops } from "../db/queries";
import type { AccountRow, DropRow } from "../db/schema";
import { viewsSince } from "../db/stats";
import { checkDropQuota, dropQuotaError, maxOwnedDrops } from "../deploy/quota";
import { purgeUnused } from "../deploy/contents";
import {
  claimBodySchema,
  LIST_LIMIT_MAX,
  listQuerySchema,
  MAX_OFFSET,
  type Drop,
  type DropDetail,
  type LimitsResponse,
  type ListDropsResponse,
} from "../schemas";

// Listing, deleting and claiming drops: the account side of a drop's life.

export function toDrop(row: Omit<DropRow, "siteRules">, ctx: AppContext): Drop {
  return {
    slug: row.slug,
    url: dropUrl(row.slug, ctx.env),
    name: row.name,
    file_count: row.fileCount,
    redeploy_count: row.redeployCount,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    disabled: disabledField(row),
  };
}

export function parseListQuery(params: URLSearchParams | Record<string, unknown>): { limit: number; offset: number } {
  const raw = params instanceof URLSearchParams ? Object.fromEntries(params) : params;
  // Present but empty, or anything but decimal digits (1e2, 0x10, 0b1, -1, " 7"): refused.
  const { limit, offset } = pageIntegers(raw, "list-drops") as Record<string, unknown>;
  const parsed = listQuerySchema.safeParse({ limit, offset });
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The query", {
      hint: `limit must be 1 to ${LIST_LIMIT_MAX} and offset 0 to ${MAX_OFFSET}.`,
      docs: "list-drops",
    });
  return parsed.data;
}

export async function listDrops(
  ctx: AppContext,
  account: AccountRow,
  q: { limit: number; offset: number },
): Promise<ListDropsResponse> {
  // Callers other than the REST route (the dashboard's pages) may compute any offset: past the
  // int4 range there are no rows, so the page is empty rather than a database error.
  const limit = Math.min(Math.max(1, Math.trunc(q.limit) || 1), LIST_LIMIT_MAX);
  const offset = Math.min(Math.max(0, Math.trunc(q.offset) || 0), MAX_OFFSET);
  const { total, rows } = await withDb(() => listOwnedDrops(ctx.db, account.id, limit, offset));
  const views = await views7d(
    ctx,
    rows.map((r) => r.id),
  );
  return { total, drops: rows.map((r) => ({ ...toDrop(r, ctx), views_7d: views.get(r.id) ?? 0 })) };
}

/** Views of today and the 6 days before (UTC) of each drop, as GET /drops/{slug}/stats counts them. */
export function views7d(ctx: AppContext, dropIds: string[]): Promise<Map<string, number>> {
  return withDb(() => viewsSince(ctx.db, dropIds, views7dSince(ctx.now())));
}

/** The first day ('YYYY-MM-DD', UTC) of the 7 days of views ending on the day of `now`. */
export function views7dSince(now: number): string {
  return new Date(now - 6 * 86_400_000).toISOString().slice(0, 10);
}

/** A drop of the account by slug; anything else (absent, anonymous, another account's) is 404. */
export async function ownedDrop(ctx: AppContext, account: AccountRow, rawSlug: unknown): Promise<DropRow> {
  const absent = () =>
    new ApiError(
      "not_found",
      `No drop ${isPlainText(String(rawSlug)) ? String(rawSlug).slice(0, 100) : "with that slug"} in this account.`,
    );
  const slug = slugOr404(rawSlug, absent);
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  // Another account's drop answers exactly as an absent one.
  if (!drop || drop.ownerId !== account.id) throw absent();
  return drop;
}

/** At most this many files are listed by getDrop; file_count tells the whole number. */
export const DROP_FILES_LISTED = 1000;

/** One drop of the account with its files (path, size, type) and site rules, for the MCP get_drop tool. */
export async function getDrop(ctx: AppContext, account: AccountRow, slug: string): Promise<DropDetail> {
  const drop = await ownedDrop(ctx, account, slug);
  const rows = await listDropFiles(ctx.db, drop.id, drop.liveVersion, DROP_FILES_LISTED).catch((err) => {
    throw upstreamUnavailable("database", err);
  });
  return {
    ...toDrop(drop, ctx),
    access: drop.accessMode,
    plan: account.plan,
    total_bytes: drop.totalBytes,
    files: rows.map((r) => ({ path: r.path, size: r.size, content_type: r.contentType })),
    files_truncated: drop.fileCount > rows.length,
    ...ruleCounts(drop.siteRules),
    rules: {
      redirects: drop.siteRules?.redirects ?? [],
      headers: (drop.siteRules?.headers ?? []).map((h) => ({
        line: h.line,
        path: h.path,
        headers: h.headers.map(([name, value]) => ({ name, value })),
      })),
    },
    live_version: drop.liveVersion,
    version_url: previewUrl(drop.slug, { version: drop.liveVersion }, ctx.env),
  };
}

/**
 * Deletes a drop: bytes of older batches first, then its rows (under the drop's row lock, which
 * appends and replaces take too), then the contents no other file references.
 */
export async function deleteDrop(ctx: AppContext, account: AccountRow, slug: unknown): Promise<{ deleted: string }> {
  return removeDrop(ctx, await ownedDrop(ctx, account, slug));
}

/** Deletes a drop with its bytes and purge: the owner's delete, and an operator's (lib/admin). */
export async function removeDrop(ctx: AppContext, drop: DropRow): Promise<{ deleted: string }> {
  try {
    await ctx.storage.deletePrefix(`${drop.id}/`);
  } catch (err) {
    throw upstreamUnavailable("file storage", err);
  }
  const deleted = await withDb(() => deleteDropRow(ctx.db, drop.id, "deleted", new Date(ctx.now())));
  // A parallel delete of the same drop removed the row first: only one request deletes it.
  if (!deleted) throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  const { old, hostnames } = deleted;
  await dropChanged(ctx, drop, "delete");
  await detachHostnames(ctx, hostnames);
  // An append or named redeploy of an older batch-stored drop that committed between the purge
  // and the row delete wrote bytes no row points at any more: purge once more (best effort).
  await ctx.storage
    .deletePrefix(`${drop.id}/`)
    .catch((err) => console.error("[drops] could not purge the bytes of a deleted drop", drop.id, err));
  await purgeUnused(ctx, old).catch((err) =>
    console.error("[drops] could not purge the contents of a deleted drop", drop.id, err),
  );
  return { deleted: drop.slug };
}

// POST /claim: a one-time token gives an anonymous drop to the caller's account.
export async function claimDrop(ctx: AppContext, account: AccountRow, input: unknown) {
  const parsed = claimBodySchema.safeParse(input);
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The body", {
      hint: "slug and claim_token must be strings.",
      docs: "claiming",
    });
  const body = parsed.data;
  // Anything that cannot be a slug or a claim token is no claimable drop: nothing reaches the database.
  const slug = slugOr404(body.slug, claimNotFound);
  if (!CLAIM_TOKEN_PATTERN.test(body.claim_token)) throw claimNotFound();
  return claimDropByHash(ctx, account, slug, sha256Hex(body.claim_token));
}

const claimNotFound = () =>
  new ApiError("not_found", "No claimable drop with that slug and token.", {
    hint: "Check the slug and the claim_token from the deploy response; a token works once.",
    docs: "claiming",
  });

/** The claim itself, by the SHA-256 of the token (POST /claim, and claims approved on /device). */
export async function claimDropByHash(ctx: AppContext, account: AccountRow, slug: string, hash: string) {
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  if (!drop || drop.ownerId !== null || drop.claimTokenHash !== hash) throw claimNotFound();
  const now = ctx.now();
  if (drop.purgeAt && drop.purgeAt.getTime() <= now) {
    throw new ApiError("gone", "The claim window of this drop has closed.", { docs: "claiming" });
  }
  await checkDropQuota(ctx, { account });
  const ttl = limits[account.plan].ttlDefaultSeconds;
  const expiresAt = ttl === null ? null : new Date(now + ttl * 1000);
  const maxOwned = maxOwnedDrops({ account });
  const claimed = await withDb(() =>
    claimDropRow(
      ctx.db,
      drop.id,
      hash,
      { ownerId: account.id, expiresAt, purgeAt: expiresAt, updatedAt: new Date(now) },
      maxOwned,
    ),
  );
  if (claimed && "capped" in claimed) throw dropQuotaError({ account }, claimed.capped, maxOwned ?? claimed.capped);
  if (!claimed) throw claimNotFound();
  await dropChanged(ctx, claimed, "claim");
  return {
    slug: claimed.slug,
    url: dropUrl(claimed.slug, ctx.env),
    expires_at: expiresAt ? expiresAt.toISOString() : null,
    plan: account.plan,
  };
}

/** The limits of a tier in the snake_case shape of GET /limits and get_limits. */
export function describeLimits(ctx: AppContext, account: AccountRow | null): LimitsResponse {
  const tier = account ? account.plan : "anonymous";
  const l = limits[tier];
  return {
    plan: tier,
    paid: isPaid(tier),
    limits: {
      files_per_request: l.filesPerRequest,
      files_per_drop: l.filesPerDrop,
      zip_bytes: l.zipBytes,
      body_bytes: l.bodyBytes,
      file_bytes: l.fileBytes,
      drop_bytes: l.dropBytes,
      held_bytes: l.heldBytes,
      decompression_ratio: l.decompressionRatio,
      redirect_rules: l.redirectRules,
      header_rules: l.headerRules,
      rule_line_chars: l.ruleLineChars,
      header_lines_per_rule: l.headerLinesPerRule,
      added_header_bytes: l.addedHeaderBytes,
      ttl_min_seconds: l.ttlMinSeconds,
      ttl_max_seconds: l.ttlMaxSeconds,
      ttl_default_seconds: l.ttlDefaultSeconds,
      max_drops: l.maxDrops,
      max_keys: l.maxKeys,
      max_webhooks: l.maxWebhooks,
      named_drops: l.namedDrops,
      append: l.append,
      vanity: l.vanity,
      max_domains: l.maxDomains,
      max_members: l.maxMembers,
      deploys_per_minute: ratePolicies(ctx.env).deploy.max,
      versions_kept: l.versionsKept,
      aliases_per_drop: l.aliasesPerDrop,
      stats_retention_days: l.statsRetentionDays,
      render_checks_per_hour: l.renderChecksPerHour,
    },
  };
}
