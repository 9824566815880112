// npm run admin -- <command>: the operator's commands on this server's database.
//   set-plan <account|email> <free|pro|team>   grant a plan without Stripe (self-hosting)
//   grant-admin <account|email>                make an account an operator
//   queue [open|resolved]                      drops with open reports or scan flags
//   disable <slug> <reason> [note]             the drop answers 451 (reason: phishing, malware, spam, illegal, copyright, other)
//   enable <slug>
//   suspend <account|email> <reason> [note]    every drop 451, credentials refused, webhooks paused
//   unsuspend <account|email>
//   block <cidr> <reason> [expires_in_seconds] refuse anonymous deploys, preflights and reports from a range
//   unblock <block id>
//   audit [limit]                              the audit log, newest first
// Every action is audited with the actor `cli`. With the embedded PGlite store, stop the server first.
import { createContext, type AppContext } from "../lib/context";
import { env } from "../lib/env";
import { ApiError } from "../lib/errors";
import { findAccountsByIdOrEmail, setPlan } from "../lib/db/accounts";
import { plans, type Plan } from "../lib/plans";
import {
  addBlock,
  adminAudit,
  adminQueue,
  disableDrop,
  enableDrop,
  grantOperator,
  removeBlock,
  suspendAccount,
  unsuspendAccount,
} from "../lib/admin/actions";

const CLI = { id: "cli" };
const usage = `usage: npm run admin -- set-plan <account|email> <free|pro|team>
                     | grant-admin <account|email>
                     | queue [open|resolved]
                     | disable <slug> <reason> [note] | enable <slug>
                     | suspend <account|email> <reason> [note] | unsuspend <account|email>
                     | block <cidr> <reason> [expires_in_seconds] | unblock <block id>
                     | audit [limit]`;

const [command, ...args] = process.argv.slice(2);
const [a, b, c] = args;

type Run = (ctx: AppContext) => Promise<unknown>;
const commands: Record<string, { needs: number; run: Run }> = {
  "set-plan": { needs: 2, run: (ctx) => runSetPlan(ctx, a!, b!) },
  "grant-admin": { needs: 1, run: (ctx) => grantOperator(ctx, CLI, a!) },
  queue: { needs: 0, run: (ctx) => adminQueue(ctx, { status: a ?? "open", limit: "500" }) },
  disable: { needs: 2, run: (ctx) => disableDrop(ctx, CLI, a!, { reason: b, ...(c ? { note: c } : {}) }) },
  enable: { needs: 1, run: (ctx) => enableDrop(ctx, CLI, a!) },
  suspend: { needs: 2, run: (ctx) => suspendAccount(ctx, CLI, a!, { reason: b, ...(c ? { note: c } : {}) }) },
  unsuspend: { needs: 1, run: (ctx) => unsuspendAccount(ctx, CLI, a!) },
  block: {
    needs: 2,
    run: (ctx) => addBlock(ctx, CLI, { cidr: a, reason: b, ...(c ? { expires_in: Number(c) } : {}) }),
  },
  unblock: { needs: 1, run: (ctx) => removeBlock(ctx, CLI, a!) },
  audit: { needs: 0, run: (ctx) => adminAudit(ctx, { limit: a ?? "50" }) },
};

async function runSetPlan(ctx: AppContext, who: string, plan: string): Promise<string> {
  if (!(plans as readonly string[]).includes(plan)) throw new UsageError(`unknown plan ${JSON.stringify(plan)}`);
  const matches = await findAccountsByIdOrEmail(ctx.db, who);
  if (matches.length !== 1)
    throw new ApiError(
      "not_found",
      matches.length === 0
        ? `no account with id or email ${who}`
        : `${matches.length} accounts have email ${who}; use the account id`,
    );
  const account = matches[0]!;
  await setPlan(ctx.db, account.id, plan as Plan);
  return `${account.id}${account.email ? ` (${account.email})` : ""}: ${account.plan} → ${plan}`;
}

class UsageError extends Error {}

const chosen = command === undefined ? undefined : commands[command];
if (!chosen || args.length < chosen.needs) {
  console.error(usage);
  process.exit(2);
}
const ctx = await createContext(env());
try {
  const out = await chosen.run(ctx);
  console.log(typeof out === "string" ? out : JSON.stringify(out, null, 2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`${err.message}; ${usage}`);
    process.exitCode = 2;
  } else if (err instanceof ApiError && err.status < 500) {
    console.error(`${err.code}: ${err.message}${err.details.field ? ` (${err.details.field})` : ""}`);
    process.exitCode = 1;
  } else {
    throw err;
  }
} finally {
  await ctx.dbHandle.close();
}
