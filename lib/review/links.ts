import { randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { insertReviewLink, listReviewLinks, revokeReviewLink } from "../db/review";
import { withDb } from "../db/errors";
import type { AccountRow } from "../db/schema";
import { ApiError } from "../errors";
import { prefixedId, sha256Hex } from "../ids";
import { refuseDisabled } from "../safety/disabled";
import type { ReviewLinkCreated, ReviewLinkList } from "../schemas";
import { ownedDrop } from "../drops/manage";

// Review links (DESIGN round 5, "Review"): BASE_URL/review/<token> lets whoever holds it read and
// add comments on one drop, nothing else, until it expires or is revoked. The token is shown
// once, at creation; the database keeps its SHA-256. Minted by the owner or a team's members
// and up (the gate table); a disabled drop's links cannot be written.

const DAY_MS = 86_400_000;

/** The review page of a token. */
export function reviewUrl(token: string, base: string): string {
  return `${base}/review/${token}`;
}

// POST /drops/{slug}/review-links
export async function createReviewLink(
  ctx: AppContext,
  account: AccountRow,
  actor: AccountRow | undefined,
  slug: unknown,
  body: { expires_in_days: number; label?: string | undefined },
): Promise<ReviewLinkCreated> {
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  const token = `rl_${randomBytes(32).toString("base64url")}`;
  const now = new Date(ctx.now());
  const row = await withDb(() =>
    insertReviewLink(ctx.db, {
      id: prefixedId("rvl"),
      dropId: drop.id,
      tokenHash: sha256Hex(token),
      label: body.label?.trim() || null,
      createdBy: (actor ?? account).id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + body.expires_in_days * DAY_MS),
    }),
  );
  return { id: row.id, url: reviewUrl(token, ctx.env.BASE_URL), expires_at: row.expiresAt.toISOString() };
}

// GET /drops/{slug}/review-links
export async function listDropReviewLinks(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
): Promise<ReviewLinkList> {
  const drop = await ownedDrop(ctx, account, slug);
  const rows = await withDb(() => listReviewLinks(ctx.db, drop.id, new Date(ctx.now())));
  return {
    review_links: rows.map((r) => ({
      id: r.id,
      label: r.label,
      expires_at: r.expiresAt.toISOString(),
      created_at: r.createdAt.toISOString(),
    })),
  };
}

// DELETE /drops/{slug}/review-links/{id}
export async function revokeDropReviewLink(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  id: unknown,
): Promise<void> {
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  const gone =
    typeof id === "string" &&
    /^rvl_[a-z2-7]{24}$/.test(id) &&
    (await withDb(() => revokeReviewLink(ctx.db, drop.id, id, new Date(ctx.now()))));
  if (!gone) throw new ApiError("not_found", `${drop.slug} has no usable review link with that id.`);
}
