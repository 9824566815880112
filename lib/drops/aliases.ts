import type { AppContext } from "../context";
import { deleteAlias, listAliases, setAlias } from "../db/aliases";
import { withDb } from "../db/errors";
import type { AccountRow } from "../db/schema";
import { ApiError } from "../errors";
import { isAliasName } from "../patterns";
import { limits } from "../plans";
import { refuseDisabled } from "../safety/disabled";
import type { AliasList, AliasResponse } from "../schemas";
import { dropChanged } from "../serve/cache";
import { previewUrl } from "../serve/host";
import { ownedDrop } from "./manage";

// A drop's aliases (DESIGN round 5, "Previews"): a name that points at a retained version and
// moves; `<slug>---<name>` serves it. Owner only (a team's drop: its deploy roles), never an
// anonymous drop's; the plan table caps how many a drop has.

/** The largest version number a drop can have (PostgreSQL int4). */
const MAX_VERSION = 2_147_483_647;

function checkName(name: unknown): string {
  if (typeof name !== "string" || !isAliasName(name))
    throw new ApiError(
      "invalid_name",
      "An alias is 1 to 16 lowercase letters, digits and hyphens, starting and ending with a letter or digit, without -- and not v followed by digits only.",
      { docs: "versions" },
    );
  return name;
}

// PUT /drops/{slug}/aliases/{name} – create or move an alias
export async function setDropAlias(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  rawName: unknown,
  version: number,
): Promise<AliasResponse> {
  const drop = await ownedDrop(ctx, account, slug);
  const name = checkName(rawName);
  refuseDisabled(drop);
  const absent = () =>
    new ApiError("not_found", `${drop.slug} has no version ${version}: it never existed or was pruned.`, {
      hint: "GET /drops/{slug}/versions lists the retained versions.",
      docs: "versions",
    });
  if (version < 1 || version > MAX_VERSION) throw absent();
  const max = limits[account.plan].aliasesPerDrop;
  const url = previewUrl(drop.slug, { alias: name }, ctx.env);
  const out = await withDb(() =>
    setAlias(ctx.db, { dropId: drop.id, name, version, max, now: new Date(ctx.now()), url }),
  );
  if (!out.ok) {
    if (out.reason === "no_version") throw absent();
    if (out.reason === "cap")
      throw new ApiError(
        "invalid_request",
        `${drop.slug} has ${out.count} aliases, the most its plan allows (${max}).`,
        {
          hint: "Delete an alias you no longer need (DELETE /drops/{slug}/aliases/{name}), or move one.",
          docs: "limits",
          details: { limit: "max_aliases", allowed: max, plan: account.plan },
        },
      );
    throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  }
  await dropChanged(ctx, drop, "alias");
  return { name, version, url };
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
  const name = checkName(rawName);
  refuseDisabled(drop);
  const deleted = await withDb(() => deleteAlias(ctx.db, drop.id, name, new Date(ctx.now())));
  if (!deleted) throw new ApiError("not_found", `${drop.slug} has no alias ${name}.`, { docs: "versions" });
  await dropChanged(ctx, drop, "alias");
}
