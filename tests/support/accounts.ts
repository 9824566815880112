import type { AppContext } from "@/lib/context";
import { insertKey, upsertAccount, setPlan } from "@/lib/db/accounts";
import { newApiKey } from "@/lib/auth/keys";
import { newId } from "@/lib/ids";
import type { AccountRow } from "@/lib/db/schema";
import { registerSecret } from "./secrets";

let n = 0;

/** Creates an account (as a first login would) with a live API key, through the real queries. */
export async function accountWithKey(
  ctx: AppContext,
  plan: AccountRow["plan"] = "free",
): Promise<{ account: AccountRow; apiKey: string; keyId: string }> {
  n++;
  const account = await upsertAccount(ctx.db, {
    id: `acc_${newId().replace(/-/g, "")}`,
    issuer: "https://issuer.test",
    subject: `user-${n}-${newId()}`,
    email: `user${n}@example.test`,
  });
  if (plan !== "free") await setPlan(ctx.db, account.id, plan);
  const key = newApiKey();
  registerSecret("api key", key.apiKey);
  await insertKey(ctx.db, {
    id: key.keyId,
    accountId: account.id,
    prefix: key.prefix,
    note: "test",
    createdAt: new Date(ctx.now()),
  });
  return { account: { ...account, plan }, apiKey: key.apiKey, keyId: key.keyId };
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
