import { createHmac, randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { insertMemberToken, takeMemberToken } from "../db/access";
import { withDb } from "../db/errors";
import { MEMBER_TOKEN_PATTERN } from "../patterns";
import { ACCESS_MEMBER_TOKEN_SECONDS } from "../plans";
import { derivedKey } from "../secret";

// The one-time token of a members-only drop: the app host makes one for a logged-in member of
// the owning team and sends the browser with it to the drop host's unlock path, which spends it
// for the drop's unlock cookie (the cookie a password sets). Good once, for 60 s, for one drop
// at its policy version then; only its keyed hash is stored.

const PURPOSE = "member-access-token";

function tokenHash(ctx: AppContext, token: string): string {
  return createHmac("sha256", derivedKey(PURPOSE, ctx.env)).update(token).digest("hex");
}

/** A new token for `accountId` (a member now) to unlock this drop at its current policy version. */
export async function issueMemberToken(
  ctx: AppContext,
  drop: { id: string; accessPolicyVersion: number },
  accountId: string,
): Promise<string> {
  const token = `mt_${randomBytes(32).toString("base64url")}`;
  const now = ctx.now();
  await withDb(() =>
    insertMemberToken(ctx.db, {
      tokenHash: tokenHash(ctx, token),
      dropId: drop.id,
      accountId,
      policyVersion: drop.accessPolicyVersion,
      createdAt: new Date(now),
      expiresAt: new Date(now + ACCESS_MEMBER_TOKEN_SECONDS * 1000),
    }),
  );
  return token;
}

/**
 * Spends a token presented for this drop (at its policy version now): true when it was made for
 * it, is unused and has not expired. Any token presented is spent, whatever the answer.
 */
export async function redeemMemberToken(
  ctx: AppContext,
  token: string,
  drop: { id: string; accessPolicyVersion: number },
): Promise<boolean> {
  if (!MEMBER_TOKEN_PATTERN.test(token)) return false;
  const row = await takeMemberToken(ctx.db, tokenHash(ctx, token));
  return (
    row !== undefined &&
    row.dropId === drop.id &&
    row.policyVersion === drop.accessPolicyVersion &&
    row.expiresAt.getTime() > ctx.now()
  );
}
