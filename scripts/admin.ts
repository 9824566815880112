// npm run admin -- set-plan <accountId|email> <free|pro|team>
// Grants a plan without Stripe (self-hosting). With the embedded PGlite store, stop the server first.
import { createContext } from "../lib/context";
import { env } from "../lib/env";
import { findAccountsByIdOrEmail, setPlan } from "../lib/db/accounts";
import { plans, type Plan } from "../lib/plans";

const [command, who, plan] = process.argv.slice(2);
const usage = "usage: npm run admin -- set-plan <accountId|email> <free|pro|team>";
if (command !== "set-plan" || !who || !plan) {
  console.error(usage);
  process.exit(2);
}
if (!(plans as readonly string[]).includes(plan)) {
  console.error(`unknown plan ${JSON.stringify(plan)}; ${usage}`);
  process.exit(2);
}
const ctx = await createContext(env());
try {
  const matches = await findAccountsByIdOrEmail(ctx.db, who);
  if (matches.length !== 1) {
    console.error(
      matches.length === 0
        ? `no account with id or email ${who}`
        : `${matches.length} accounts have email ${who}; use the account id`,
    );
    process.exitCode = 1;
  } else {
    const account = matches[0]!;
    await setPlan(ctx.db, account.id, plan as Plan);
    console.log(`${account.id}${account.email ? ` (${account.email})` : ""}: ${account.plan} → ${plan}`);
  }
} finally {
  await ctx.dbHandle.close();
}
