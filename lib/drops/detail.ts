import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { findDropBySlug, listDropFiles } from "../db/queries";
import type { AccountRow } from "../db/schema";
import type { Drop } from "../schemas";
import { toDrop } from "./manage";

// One drop of the caller's account with its files: the dashboard's page per drop.

export interface DropDetail extends Drop {
  total_bytes: number;
  files: { path: string; size: number; content_type: string }[];
}

export async function getDropDetail(ctx: AppContext, account: AccountRow, slug: string): Promise<DropDetail> {
  try {
    const row = await findDropBySlug(ctx.db, slug);
    // Another account's drop answers exactly as an absent one.
    if (!row || row.ownerId !== account.id) throw new ApiError("not_found", `No drop ${slug} in this account.`);
    const files = await listDropFiles(ctx.db, row.id);
    return { ...toDrop(row, ctx), total_bytes: row.totalBytes, files: files.map((f) => ({ path: f.path, size: f.size, content_type: f.contentType })) };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw upstreamUnavailable("database", err);
  }
}
