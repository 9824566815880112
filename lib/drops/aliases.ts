import type { AppContext } from "../context";
import { deleteAlias, listAliases } from "../db/aliases";
import { withDb } from "../db/errors";
import type { AccountRow } from "../db/schema";
import { ApiError } from "../errors";
import { aliasName, pointAlias } from "../deploy/alias";
import { refuseDisabled } from "../safety/disabled";
import type { AliasList, AliasResponse } from "../schemas";
import { dropChanged } from "../serve/cache";
import { previewUrl } from "../serve/host";
import { ownedDrop } from "./manage";

// A drop's aliases (DESIGN round 5, "Previews"): a name that points at a retained version and
// moves; `<slug>---<name>` serves it. Owner only (a team's drop: its deploy roles), never an
// anonymous drop's; the plan table caps how many a drop has.

// PUT /drops/{slug}/aliases/{name} – create or move an alias
export async function setDropAlias(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  rawName: unknown,
  version: number,
): Promise<AliasResponse> {
  const drop = await ownedDrop(ctx, account, slug);
  const name = aliasName(rawName);
  refuseDisabled(drop);
  return pointAlias(ctx, account, drop, name, version);
}

// GET /drops/{slug}/aliases
export async function listDropAliases(ctx: AppContext, account: AccountRow, slug: unknown): Promise<AliasList> {
  const drop = await ownedDrop(ctx, account, slug);
  const rows = await withDb(() => listAliases(ctx.db, drop.id));
  return {
    aliases: rows.map((a) => ({
      name: a.name,
      version: a.version,
      url: previewUrl(drop.slug, { alias: a.name }, ctx.env),
      updated_at: a.updatedAt.toISOString(),
    })),
  };
}

// DELETE /drops/{slug}/aliases/{name}
export async function deleteDropAlias(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  rawName: unknown,
): Promise<void> {
  const drop = await ownedDrop(ctx, account, slug);
  const name = aliasName(rawName);
  refuseDisabled(drop);
  const deleted = await withDb(() => deleteAlias(ctx.db, drop.id, name, new Date(ctx.now())));
  if (!deleted) throw new ApiError("not_found", `${drop.slug} has no alias ${name}.`, { docs: "versions" });
  await dropChanged(ctx, drop, { alias: name });
}
