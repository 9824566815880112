import { countDeploy, countDeployBytes } from "../metrics/deploys";
import { ApiError } from "../errors";
import { refuseDisabled } from "../safety/disabled";
import { databaseError, withDb } from "../db/errors";
import { isSlug, slugOr404 } from "../input";
import type { AppContext } from "../context";
import { dropChanged } from "../serve/cache";
import { previewUrl } from "../serve/host";
import { dropUrl } from "../env";
import { newClaimToken, newId, newSlug, sha256Hex } from "../ids";
import { CLAIM_GRACE_SECONDS, isPaid, limits, type TierLimits } from "../plans";
import { ruleCounts, type SiteRules } from "../rules/types";
import {
  appendDropFiles,
  findDropByOwnerName,
  findDropBySlug,
  insertDropWithFiles,
  isUniqueViolation,
  listDropFiles,
  replaceDropFiles,
  type WriteFile,
} from "../db/queries";
import type { Publish } from "../db/versions";
import type { DropRow } from "../db/schema";
import type { AppendResponse, DeployResponse } from "../schemas";
import { countOpenThreads } from "../db/review";
import type { Caller } from "../auth/caller";
import type { InputFile } from "./paths";
import { checkDropQuota, dropQuotaError, maxOwnedDrops, tierOf } from "./quota";
import { accountScope, anonymousDropScope, releaseContents, storeContents, type OnBytes } from "./contents";
import { reportFor, scanWhileStoring } from "./report";
import { dropBytesError } from "./body";
import { DeployScan } from "./scan";
import { compileSiteRules, hasRuleFiles, requestBytes, rulesNeedStorage, storedBytes } from "./rules";

// Creating, replacing and appending to drops. Contents are stored first (content-addressed,
// see ./contents), pinned while the rows follow in one transaction. A failure at either step
// purges what only this deploy stored, so no half drop is visible or left behind. Each write
// makes a new version of the drop (lib/db/versions.ts); a replaced version keeps its contents
// until the cleanup job prunes it. Every response carries
// the deploy report (./report), made while the rows are committed (it only reads stored bytes
// and never rejects; on a failed deploy it is dropped).

/** Marks file rows that reference contents (their bytes are not under a batch prefix). */
const CONTENT_BATCH = "c";

interface StoredFiles {
  scope: string;
  pinned: string[];
  rows: WriteFile[];
}

/**
 * Stores the contents of files in the scope and returns the drop's file rows. The deploy scan
 * (./scan) runs here, the one step every write of files passes before its rows commit: a
 * refusal leaves nothing stored (the uploads it used lose their holds and are purged too).
 */
async function storeFiles(
  ctx: AppContext,
  dropId: string,
  scope: string,
  files: InputFile[],
  scan: DeployScan | null,
): Promise<StoredFiles> {
  await scan?.beforeStore(scope);
  const report = scanWhileStoring(ctx, scope, files);
  const onBytes: OnBytes = scan
    ? (f, sha, bytes) => {
        report(f, sha, bytes);
        scan.onBytes(f, sha, bytes);
      }
    : report;
  const stored = await storeContents(ctx, scope, files, onBytes);
  const rows = stored.files.map((f) => ({
    dropId,
    path: f.path,
    size: f.size,
    sha256: f.sha256,
    contentType: f.contentType,
    storageRef: f.storageRef,
    batch: CONTENT_BATCH,
    scope,
  }));
  try {
    await scan?.afterStore(rows, report);
  } catch (err) {
    await releaseContents(ctx, scope, stored.pinned, { purge: true, endHolds: true });
    throw err;
  }
  return { scope, pinned: stored.pinned, rows };
}

/**
 * Runs the database step of a deploy with its contents pinned: the pins go afterwards, and on
 * failure what only this deploy stored is purged.
 */
async function commitOrRelease<T>(
  ctx: AppContext,
  stored: StoredFiles,
  step: () => Promise<T>,
  ok: (result: T) => boolean = () => true,
): Promise<T> {
  let result: T;
  try {
    result = await step();
  } catch (err) {
    await releaseContents(ctx, stored.scope, stored.pinned, { purge: true });
    throw err instanceof ApiError ? err : databaseError(err);
  }
  // A preflight's hold bridges its upload and its deploy: once files reference the contents it
  // is over, so deleting the drop later purges what only it used at once, not an hour on.
  await releaseContents(ctx, stored.scope, stored.pinned, { purge: !ok(result), endHolds: ok(result) });
  return result;
}

/** The content scope of a drop's new files. */
function scopeFor(caller: Pick<Caller, "account">, dropId: string, given?: string): string {
  if (caller.account) return accountScope(caller.account.id);
  return given ?? anonymousDropScope(dropId);
}

export interface DeployInput {
  files: InputFile[];
  /** Seconds, or null for no expiry (already resolved for the tier). */
  ttl: number | null;
  /** Named drop (subscribers); already validated. */
  name?: string;
  /** The content scope of the files (an anonymous preflight's); default: the account's or the drop's own. */
  scope?: string;
  /** Runs once every check has passed, just before the first byte is stored (the deploy rate budget). */
  beforeStore?: () => Promise<void>;
  /** If-Match of a named redeploy: replace only while this version is live. */
  ifMatch?: number | null;
  /** The client's address (an anonymous deploy's scan refusal is audited under its keyed hash). */
  address?: string;
  /** false: a redeploy's new version is staged, not made live (a first deploy is always live). */
  promote?: boolean;
}

/** How a write of `slug` publishes: live unless `promote` is false, with its versions' URLs. */
function publishOf(ctx: AppContext, slug: string, promote: boolean | undefined): Publish {
  return { promote: promote !== false, versionUrl: (version) => previewUrl(slug, { version }, ctx.env) };
}

/**
 * What every deploy and append answer says of versions (the one made, its URL, the live one)
 * and of review: the drop's open comment threads (a new drop has none).
 */
async function versionFields(
  ctx: AppContext,
  drop: { id: string; slug: string } | string,
  version: number,
  live: number,
) {
  const slug = typeof drop === "string" ? drop : drop.slug;
  return {
    version,
    version_url: previewUrl(slug, { version }, ctx.env),
    live_version: live,
    promoted: version === live,
    open_comments: typeof drop === "string" ? 0 : await withDb(() => countOpenThreads(ctx.db, drop.id)),
  };
}

function lifetimes(
  now: Date,
  ttl: number | null,
  anonymous: boolean,
): { expiresAt: Date | null; purgeAt: Date | null } {
  const expiresAt = ttl === null ? null : new Date(now.getTime() + ttl * 1000);
  const purgeAt = expiresAt && anonymous ? new Date(expiresAt.getTime() + CLAIM_GRACE_SECONDS * 1000) : expiresAt;
  return { expiresAt, purgeAt };
}

/** The bytes files will take once stored: inline, zip entries (their checked sizes) and references alike. */
function inputBytes(files: InputFile[]): number {
  return files.reduce((n, f) => n + (f.ref?.size ?? f.source?.size ?? f.bytes.byteLength), 0);
}

export async function createDrop(ctx: AppContext, caller: Caller, input: DeployInput): Promise<DeployResponse> {
  const tier = tierOf(caller);
  const bytes = inputBytes(input.files);
  if (bytes > limits[tier].dropBytes) throw dropBytesError(bytes, limits[tier].dropBytes, isPaid(tier));
  if (input.name !== undefined && caller.account) return deployNamed(ctx, caller, { ...input, name: input.name });
  await checkDropQuota(ctx, caller);
  return insertNewDrop(ctx, caller, input);
}

async function insertNewDrop(ctx: AppContext, caller: Caller, input: DeployInput): Promise<DeployResponse> {
  const now = new Date(ctx.now());
  const id = newId();
  const slug = newSlug();
  const anonymous = caller.account === null;
  const tierLimits = limits[tierOf(caller)];
  const early = await rulesBeforeStore(input.files, tierLimits);
  await input.beforeStore?.();
  const scan = await DeployScan.start(ctx, caller, input.files, tierLimits, { slug, address: input.address });
  const stored = await storeFiles(ctx, id, scopeFor(caller, id, input.scope), input.files, scan);
  const { rows } = stored;
  const report = reportFor(ctx, input.files, rows);
  const { expiresAt, purgeAt } = lifetimes(now, input.ttl, anonymous);
  const claimToken = anonymous ? newClaimToken() : undefined;
  const maxOwned = maxOwnedDrops(caller);
  let siteRules: SiteRules | null = null;
  await commitOrRelease(ctx, stored, async () => {
    siteRules = await rulesAfterStore(ctx, early, input.files, rows, tierLimits);
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
        siteRules,
      },
      rows,
      maxOwned,
      publishOf(ctx, slug, true),
    );
    if (capped && maxOwned !== null) throw dropQuotaError(caller, capped.capped, maxOwned);
  });
  await dropChanged(ctx, { id, slug }, "deploy");
  countDeployBytes(rows);
  await scan?.flag({ id, slug }, 1);
  const response: DeployResponse = {
    slug,
    url: dropUrl(slug, ctx.env),
    files: rows.map((r) => r.path),
    plan: caller.account?.plan ?? "free",
    expires_at: expiresAt ? expiresAt.toISOString() : null,
    ...(await versionFields(ctx, slug, 1, 1)),
  };
  if (input.name !== undefined) {
    response.name = input.name;
    response.replaced = false;
  }
  if (claimToken) response.claim_token = claimToken;
  response.report = { ...(await report), ...ruleCounts(siteRules), ...scan?.reported() };
  return response;
}

// Same name, same account: the content is replaced atomically; slug and URL stay.
async function deployNamed(
  ctx: AppContext,
  caller: Caller,
  input: DeployInput & { name: string },
): Promise<DeployResponse> {
  const account = caller.account!;
  const lookup = () => withDb(() => findDropByOwnerName(ctx.db, account.id, input.name));
  let existing = await lookup();
  // If-Match names a version of a drop that exists: without one, there is nothing it matches.
  if (!existing && input.ifMatch != null) throw staleError(input.name, null);
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

async function replaceDrop(
  ctx: AppContext,
  caller: Caller,
  drop: DropRow,
  input: DeployInput & { name: string },
): Promise<DeployResponse> {
  refuseDisabled(drop);
  const now = new Date(ctx.now());
  const tierLimits = limits[tierOf(caller)];
  const early = await rulesBeforeStore(input.files, tierLimits);
  // A stale If-Match is refused before any byte is stored (and again under the drop's lock).
  if (input.ifMatch != null && input.ifMatch !== drop.liveVersion) throw staleError(drop.slug, drop.liveVersion);
  await input.beforeStore?.();
  const scan = await DeployScan.start(ctx, caller, input.files, tierLimits, {
    slug: drop.slug,
    vanity: caller.account?.vanitySub ? `${caller.account.vanitySub}--${input.name}` : null,
    existing: true,
  });
  const stored = await storeFiles(ctx, drop.id, scopeFor(caller, drop.id), input.files, scan);
  const { rows } = stored;
  const report = reportFor(ctx, input.files, rows);
  const { expiresAt, purgeAt } = lifetimes(now, input.ttl, false);
  let siteRules: SiteRules | null = null;
  const result = await commitOrRelease(
    ctx,
    stored,
    async () => {
      siteRules = await rulesAfterStore(ctx, early, input.files, rows, tierLimits);
      return replaceDropFiles(
        ctx.db,
        drop.id,
        rows,
        { updatedAt: now, expiresAt, purgeAt, siteRules },
        input.ifMatch ?? null,
        publishOf(ctx, drop.slug, input.promote),
      );
    },
    (r) => r.ok,
  );
  if (!result.ok) {
    if (result.reason === "stale") throw staleError(drop.slug, result.live);
    throw new ApiError("conflict", "The drop was deleted while it was being replaced.", { hint: "Deploy again." });
  }
  const live = result.drop;
  if (!result.unchanged) {
    // A staged version changes nothing at the live host: this process forgets its previews only.
    await dropChanged(ctx, drop, result.version === live.liveVersion ? "replace" : "deploy");
    countDeployBytes(rows);
    await scan?.flag(drop, result.version);
  }
  const response: DeployResponse = {
    slug: drop.slug,
    url: dropUrl(drop.slug, ctx.env),
    files: rows.map((r) => r.path),
    plan: caller.account!.plan,
    expires_at: live.expiresAt ? live.expiresAt.toISOString() : null,
    name: input.name,
    replaced: !result.unchanged,
    report: { ...(await report), ...ruleCounts(siteRules), ...scan?.reported() },
    ...(await versionFields(ctx, drop, result.version, live.liveVersion)),
  };
  if (result.unchanged) response.unchanged = true;
  return response;
}

/** 409 conflict for an If-Match that names a version other than the live one (`live` null: no such drop). */
export function staleError(what: string, live: number | null): ApiError {
  return new ApiError(
    "conflict",
    live === null
      ? `If-Match names a version, but ${what} has none yet.`
      : `${what} is at version ${live}, not the one If-Match names.`,
    {
      hint: "Read the drop's live version (GET /drops/{slug}/versions), check what changed, and send If-Match with it.",
      docs: "versions",
      details: live === null ? {} : { live_version: live },
    },
  );
}

// POST /deploy/{slug}: subscribers add files to a drop they own.
/** Appends files to a drop (REST and MCP), counted in deploys_total as via `append`. */
export function appendToDrop(
  ctx: AppContext,
  caller: Caller,
  slug: string,
  files: InputFile[],
  ifMatch: number | null = null,
  promote = true,
): Promise<AppendResponse> {
  return countDeploy(
    () => "append",
    () => appendFiles(ctx, caller, slug, files, ifMatch, promote),
  );
}

async function appendFiles(
  ctx: AppContext,
  caller: Caller,
  slug: string,
  files: InputFile[],
  ifMatch: number | null,
  promote: boolean,
): Promise<AppendResponse> {
  const account = caller.account;
  if (!account)
    throw new ApiError("auth_required", "Appending needs an account credential.", { docs: "authentication" });
  const tier = tierOf(caller);
  const maxTotal = limits[tier].filesPerDrop;
  const absent = () => new ApiError("not_found", `No drop ${isSlug(slug) ? slug : "with that slug"} in this account.`);
  slugOr404(slug, absent);
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  if (!drop || drop.ownerId !== account.id || (drop.expiresAt && drop.expiresAt.getTime() <= ctx.now())) throw absent();
  refuseDisabled(drop);
  if (ifMatch !== null && ifMatch !== drop.liveVersion) throw staleError(drop.slug, drop.liveVersion);
  if (drop.fileCount + files.length > maxTotal) throw totalError(drop.fileCount, files.length, maxTotal);
  const maxBytes = limits[tier].dropBytes;
  const adding = inputBytes(files);
  if (drop.totalBytes + adding > maxBytes) throw dropBytesError(drop.totalBytes + adding, maxBytes, true, true);
  // The drop's paths, for the report's references (read before storing: a failure changes nothing).
  const existing = await withDb(() => listDropFiles(ctx.db, drop.id, drop.liveVersion, maxTotal));
  const now = new Date(ctx.now());
  const early = await rulesBeforeStore(files, limits[tier]);
  const scan = await DeployScan.start(ctx, caller, files, limits[tier], {
    slug: drop.slug,
    vanity: account.vanitySub && drop.name ? `${account.vanitySub}--${drop.name}` : null,
    existing: true,
  });
  const stored = await storeFiles(ctx, drop.id, scopeFor(caller, drop.id), files, scan);
  const { rows } = stored;
  const report = reportFor(
    ctx,
    files,
    rows,
    existing.map((f) => f.path),
  );
  const outcome = await commitOrRelease(
    ctx,
    stored,
    async () =>
      appendDropFiles(
        ctx.db,
        drop.id,
        rows,
        { files: maxTotal, bytes: maxBytes },
        now,
        await rulesAfterStore(ctx, early, files, rows, limits[tier]),
        ifMatch,
        publishOf(ctx, drop.slug, promote),
      ),
    (o) => o.ok,
  );
  if (!outcome.ok) {
    if (outcome.reason === "stale") throw staleError(drop.slug, outcome.live);
    if (outcome.reason === "too_many") throw totalError(outcome.total, files.length, maxTotal);
    if (outcome.reason === "too_large") throw dropBytesError(outcome.total + adding, maxBytes, true, true);
    if (outcome.reason === "exists") {
      throw new ApiError("invalid_request", `The drop already has a file at ${JSON.stringify(outcome.path)}.`, {
        hint: "Append adds new paths only; redeploy the named drop to replace content.",
        docs: "append",
      });
    }
    throw new ApiError("not_found", `No drop ${slug} in this account.`);
  }
  await dropChanged(ctx, drop, promote ? "append" : "deploy");
  countDeployBytes(rows);
  await scan?.flag(drop, outcome.version);
  return {
    slug: drop.slug,
    url: dropUrl(drop.slug, ctx.env),
    files: rows.map((r) => r.path),
    total_files: outcome.fileCount,
    plan: account.plan,
    expires_at: outcome.drop.expiresAt ? outcome.drop.expiresAt.toISOString() : null,
    report: { ...(await report), ...ruleCounts(outcome.siteRules), ...scan?.reported() },
    ...(await versionFields(ctx, drop, outcome.version, outcome.drop.liveVersion)),
  };
}

/** Rules not yet compiled because a rules file is given by reference (read once stored). */
const AFTER_STORE = Symbol("rules after store");

/** Compiles the site rules before any byte is stored, when the request holds their bytes. */
async function rulesBeforeStore(
  files: InputFile[],
  tierLimits: TierLimits,
): Promise<SiteRules | null | typeof AFTER_STORE> {
  if (!hasRuleFiles(files)) return null;
  return rulesNeedStorage(files) ? AFTER_STORE : compileSiteRules(files, tierLimits, requestBytes);
}

/** The site rules of the write, compiling those that needed their stored bytes. */
async function rulesAfterStore(
  ctx: AppContext,
  early: SiteRules | null | typeof AFTER_STORE,
  files: InputFile[],
  rows: WriteFile[],
  tierLimits: TierLimits,
): Promise<SiteRules | null> {
  return early === AFTER_STORE ? compileSiteRules(files, tierLimits, storedBytes(ctx, rows)) : early;
}

function totalError(current: number, adding: number, max: number): ApiError {
  return new ApiError(
    "payload_too_large",
    `The drop has ${current} files; adding ${adding} would pass the limit of ${max} files per drop.`,
    {
      details: { limit: "files_per_drop", allowed: max },
      hint: "Deploy the rest as another drop.",
      docs: "limits",
    },
  );
}
