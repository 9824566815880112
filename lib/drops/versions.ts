import type { AppContext } from "../context";
import { dropChanged } from "../serve/cache";
import { dropUrl } from "../env";
import { previewUrl } from "../serve/host";
import { ApiError } from "../errors";
import { withDb } from "../db/errors";
import { listVersions, rollbackDrop } from "../db/versions";
import type { AccountRow } from "../db/schema";
import { MAX_OFFSET, type RollbackResponse, type VersionsList } from "../schemas";
import { ownedDrop } from "./manage";
import { refuseDisabled } from "../safety/disabled";

// A drop's versions and rollback: the list newest first, and moving the live pointer to any
// retained version (older or newer), without copying a byte.

/** The largest version number a drop can have (PostgreSQL int4); anything past it names none. */
const MAX_VERSION = 2_147_483_647;

// GET /drops/{slug}/versions
export async function listDropVersions(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  q: { limit: number; offset: number },
): Promise<VersionsList> {
  const drop = await ownedDrop(ctx, account, slug);
  const limit = Math.min(Math.max(1, Math.trunc(q.limit) || 1), 500);
  const offset = Math.min(Math.max(0, Math.trunc(q.offset) || 0), MAX_OFFSET);
  const { total, rows } = await withDb(() => listVersions(ctx.db, drop.id, limit, offset));
  return {
    total,
    live_version: drop.liveVersion,
    versions: rows.map((v) => ({
      version: v.version,
      created_at: v.createdAt.toISOString(),
      file_count: v.fileCount,
      total_bytes: v.totalBytes,
      kind: v.kind,
      live: v.version === drop.liveVersion,
      version_url: previewUrl(drop.slug, { version: v.version }, ctx.env),
    })),
  };
}

// POST /drops/{slug}/rollback – make a retained version live
export async function rollbackToVersion(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  version: number,
): Promise<RollbackResponse> {
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  const absent = () =>
    new ApiError("not_found", `${drop.slug} has no version ${version}: it never existed or was pruned.`, {
      hint: "GET /drops/{slug}/versions lists the retained versions.",
      docs: "versions",
    });
  if (version < 1 || version > MAX_VERSION) throw absent();
  const outcome = await withDb(() => rollbackDrop(ctx.db, drop.id, version, new Date(ctx.now())));
  if (!outcome.ok) {
    if (outcome.reason === "no_version") throw absent();
    throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  }
  await dropChanged(ctx, drop, "rollback");
  return { slug: drop.slug, url: dropUrl(drop.slug, ctx.env), live_version: outcome.drop.liveVersion };
}
