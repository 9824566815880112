import type { Env } from "../env";
import type { AccountRow } from "../db/schema";

// Who is an operator: an account whose email is in ADMIN_EMAILS (case-insensitive) and vouched
// for by its identity provider, or one that `npm run admin -- grant-admin` promoted.

export function isOperator(env: Pick<Env, "ADMIN_EMAILS">, account: AccountRow | null | undefined): boolean {
  if (!account) return false;
  if (account.adminGrantedAt !== null) return true;
  return account.emailVerified && account.email !== null && env.ADMIN_EMAILS.includes(account.email.toLowerCase());
}
