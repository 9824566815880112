import type { AppContext } from "../context";
import { listAliases, setAlias } from "../db/aliases";
import { withDb } from "../db/errors";
import { findDropByOwnerName, findDropBySlug } from "../db/queries";
import type { AccountRow, DropRow } from "../db/schema";
import { ApiError } from "../errors";
import { isAliasName } from "../patterns";
import { limits } from "../plans";
import type { AliasResponse } from "../schemas";
import { dropChanged } from "../serve/cache";
import { previewUrl } from "../serve/host";

// Pointing a drop's alias at a version: the one write behind PUT /drops/{slug}/aliases/{name}
// (lib/drops/aliases.ts) and `?alias=` on the deploy routes, which points the alias at the new
// version in the same request (what CI uses: `--alias pr-42 --no-promote`).

/** The largest version number a drop can have (PostgreSQL int4). */
const MAX_VERSION = 2_147_483_647;

/** An alias name as given, or 400 invalid_name. */
export function aliasName(name: unknown): string {
  if (typeof name !== "string" || !isAliasName(name))
    throw new ApiError(
      "invalid_name",
      "An alias is 1 to 16 lowercase letters, digits and hyphens, starting and ending with a letter or digit, without -- and not v followed by digits only.",
      { docs: "versions" },
    );
  return name;
}

function capError(drop: Pick<DropRow, "slug">, account: AccountRow, count: number): ApiError {
  const max = limits[account.plan].aliasesPerDrop;
  return new ApiError("invalid_request", `${drop.slug} has ${count} aliases, the most its plan allows (${max}).`, {
    hint: "Delete an alias you no longer need (DELETE /drops/{slug}/aliases/{name}), or move one.",
    docs: "limits",
    details: { limit: "max_aliases", allowed: max, plan: account.plan },
  });
}

/** Creates or moves `name` of the account's `drop` to a retained version (the plan's cap on new ones). */
export async function pointAlias(
  ctx: AppContext,
  account: AccountRow,
  drop: Pick<DropRow, "id" | "slug">,
  name: string,
  version: number,
): Promise<AliasResponse> {
  const absent = () =>
    new ApiError("not_found", `${drop.slug} has no version ${version}: it never existed or was pruned.`, {
      hint: "GET /drops/{slug}/versions lists the retained versions.",
      docs: "versions",
    });
  if (version < 1 || version > MAX_VERSION) throw absent();
  const url = previewUrl(drop.slug, { alias: name }, ctx.env);
  const max = limits[account.plan].aliasesPerDrop;
  const out = await withDb(() =>
    setAlias(ctx.db, { dropId: drop.id, name, version, max, now: new Date(ctx.now()), url }),
  );
  if (!out.ok) {
    if (out.reason === "no_version") throw absent();
    if (out.reason === "cap") throw capError(drop, account, out.count);
    throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  }
  await dropChanged(ctx, drop, { alias: name });
  return { name, version, url };
}

/**
 * `?alias=` on a deploy route (MCP `alias`), checked before anything is written: a valid name, a
 * caller with an account (anonymous drops have no aliases: 400 invalid_request), and room under
 * the plan's cap on the drop the deploy writes (an existing named drop, or the appended one), so
 * a deploy past the cap is refused whole. Null without an alias.
 */
export async function aliasForDeploy(
  ctx: AppContext,
  raw: string | null | undefined,
  account: AccountRow | null,
  target: { slug: string } | { name: string } | null,
): Promise<string | null> {
  if (raw === null || raw === undefined) return null;
  const name = aliasName(raw);
  if (!account)
    throw new ApiError("invalid_request", "alias needs an account: anonymous drops have no aliases.", {
      hint: "Deploy with an API key (Authorization: Bearer sp_…) to point an alias at the new version.",
      docs: "versions",
    });
  const drop =
    target === null
      ? undefined
      : await withDb(() =>
          "slug" in target ? findDropBySlug(ctx.db, target.slug) : findDropByOwnerName(ctx.db, account.id, target.name),
        );
  const max = limits[account.plan].aliasesPerDrop;
  if (!drop || drop.ownerId !== account.id) {
    // A new drop has no alias yet: a plan without any is the only way past the cap.
    if (max < 1) throw capError({ slug: target && "name" in target ? target.name : "A new drop" }, account, 0);
    return name;
  }
  const existing = await withDb(() => listAliases(ctx.db, drop.id));
  if (!existing.some((a) => a.name === name) && existing.length >= max) throw capError(drop, account, existing.length);
  return name;
}

/**
 * Points `name` (checked by aliasForDeploy) at the version a deploy just wrote; the answer then
 * names the alias and its address (`alias: {name, url}`).
 */
export async function aliasDeployed<A extends { slug: string; version: number }>(
  ctx: AppContext,
  account: AccountRow,
  answer: A,
  name: string,
): Promise<A & { alias: { name: string; url: string | null } }> {
  const drop = await withDb(() => findDropBySlug(ctx.db, answer.slug));
  if (!drop) throw new ApiError("not_found", `No drop ${answer.slug} in this account.`);
  const pointed = await pointAlias(ctx, account, drop, name, answer.version);
  return { ...answer, alias: { name: pointed.name, url: pointed.url } };
}
