import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sharingTokenHash } from "../access/viewer";
import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { withDb } from "../db/errors";
import { insertShareLink, listUsableShareLinks, revokeShareLink } from "../db/sharing";
import { dropUrl } from "../env";
import { ApiError } from "../errors";
import { readJson } from "../http";
import { prefixedId } from "../ids";
import { SHARE_LINK_MAX_HOURS } from "../plans";
import { refuseDisabled } from "../safety/disabled";
import { shareLinkBodySchema, type ShareLinkCreated, type ShareLinkList } from "../schemas";
import { canonicalHost } from "../serve/host";
import { SHARE_PATH } from "../serve/share";
import { ownedDrop } from "./manage";

// Share links of a password or emails drop (DESIGN "Sharing by identity"): POST makes one with a
// lifetime of 1 to SHARE_LINK_MAX_HOURS hours, a URL on the drop's host that sets the access
// cookie for whoever opens it; GET lists those that still work; DELETE revokes one, and any
// change of the drop's access mode revokes them all (lib/db/access.ts), ending their cookies at
// once (the serve path checks the link behind every cookie). Owner, or a team member from the
// member role up (lib/teams/gates.ts); a disabled drop's links cannot be written (403).

/** The JSON body of POST /drops/{slug}/share-links, unparsed. */
export function readShareLinkBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
}

function parseBody(input: unknown) {
  const parsed = shareLinkBodySchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    "invalid_request",
    `Invalid share link: send {"expires_in_hours": N}, a whole number of hours from 1 to ${SHARE_LINK_MAX_HOURS}.`,
    { docs: "access" },
  );
}

export async function createShareLink(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  input: unknown,
): Promise<ShareLinkCreated> {
  const body = parseBody(input);
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  if (drop.accessMode !== "password" && drop.accessMode !== "emails")
    throw new ApiError(
      "invalid_request",
      `Drop ${drop.slug} is ${drop.accessMode}: share links are for password and emails drops.`,
      {
        hint: 'Protect it first (PUT /drops/{slug}/access with mode "password" or "emails"); a public drop needs no link.',
        docs: "access",
      },
    );
  const url = new URL(dropUrl(drop.slug, ctx.env));
  const token = `sh_${randomBytes(32).toString("base64url")}`;
  const now = ctx.now();
  const row = {
    id: prefixedId("shl"),
    dropId: drop.id,
    tokenHash: sharingTokenHash(ctx.env, token),
    host: canonicalHost(url.host),
    createdAt: new Date(now),
    expiresAt: new Date(now + body.expires_in_hours * 3_600_000),
    revokedAt: null,
  };
  await withDb(() => insertShareLink(ctx.db, row));
  return {
    id: row.id,
    url: `${url.origin}${SHARE_PATH}?${new URLSearchParams({ token }).toString()}`,
    expires_at: row.expiresAt.toISOString(),
  };
}

export async function listShareLinks(ctx: AppContext, account: AccountRow, slug: unknown): Promise<ShareLinkList> {
  const drop = await ownedDrop(ctx, account, slug);
  const rows = await withDb(() => listUsableShareLinks(ctx.db, drop.id, new Date(ctx.now())));
  return {
    share_links: rows.map((r) => ({
      id: r.id,
      expires_at: r.expiresAt.toISOString(),
      created_at: r.createdAt.toISOString(),
    })),
  };
}

export async function deleteShareLink(ctx: AppContext, account: AccountRow, slug: unknown, id: unknown): Promise<void> {
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  const known = typeof id === "string" && /^shl_[a-z0-9]{24}$/i.test(id);
  if (!known || !(await withDb(() => revokeShareLink(ctx.db, drop.id, id, new Date(ctx.now())))))
    throw new ApiError("not_found", `Drop ${drop.slug} has no share link ${known ? id : "by that id"}.`);
}
