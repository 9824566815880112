import type { AppContext } from "../context";
import { bearerCredential, requireCaller, type Caller } from "../auth/caller";
import { guardAccountRoute } from "../auth/guard";
import { findUsableReviewLink } from "../db/review";
import { withDb } from "../db/errors";
import type { AccountRow, DropRow, ReviewLinkRow } from "../db/schema";
import { ApiError, authRequired } from "../errors";
import { sha256Hex } from "../ids";
import { REVIEW_LINK_PATTERN } from "../patterns";
import { enforceLimit } from "../ratelimit/guard";
import { ownedDrop } from "../drops/manage";

// Who is reviewing a drop: a person with an account credential (the owner, or a team's member
// of a role the gate table lets through), or whoever holds a review link (`Bearer rl_…`, or the
// token of /review/<token>). A link reaches only its own drop's comments: another drop answers
// 404 as an absent one would; an unknown, revoked or expired link is 401.

export type Reviewer =
  | { kind: "account"; caller: Caller & { account: AccountRow }; drop: DropRow }
  | { kind: "link"; link: ReviewLinkRow; drop: DropRow };

function noDrop(): ApiError {
  return new ApiError("not_found", "No drop with that slug here.");
}

/** The usable review link of a token, with its drop; 401 when there is none. */
export async function reviewLinkOf(ctx: AppContext, token: string): Promise<{ link: ReviewLinkRow; drop: DropRow }> {
  if (!REVIEW_LINK_PATTERN.test(token)) throw reviewLinkRefused();
  const found = await withDb(() => findUsableReviewLink(ctx.db, sha256Hex(token), new Date(ctx.now())));
  if (!found) throw reviewLinkRefused();
  return found;
}

function reviewLinkRefused(): ApiError {
  return new ApiError("auth_required", "This review link is unknown, revoked or expired.", {
    hint: "Ask the drop's owner for a new review link.",
  });
}

/** The reviewer of a comment route of drop `slug`. */
export async function reviewerOf(ctx: AppContext, req: Request, slug: unknown): Promise<Reviewer> {
  const credential = bearerCredential(req);
  if (typeof credential === "string" && credential.startsWith("rl_")) {
    const { link, drop } = await reviewLinkOf(ctx, credential);
    await enforceLimit(ctx, "accountRoute", `review:${link.id}`);
    if (drop.slug !== slug) throw noDrop();
    return { kind: "link", link, drop };
  }
  if (credential === undefined) throw authRequired();
  const caller = await requireCaller(ctx, req);
  await guardAccountRoute(ctx, caller);
  return { kind: "account", caller, drop: await ownedDrop(ctx, caller.account, slug) };
}

/** The reviewer of an account caller already resolved (the MCP tools): the drop must be its own. */
export async function accountReviewer(
  ctx: AppContext,
  caller: Caller & { account: AccountRow },
  slug: unknown,
): Promise<Reviewer> {
  return { kind: "account", caller, drop: await ownedDrop(ctx, caller.account, slug) };
}
