// The reliability run: the built app (`node server.mjs`, as after `npm run build`) on a real
// PostgreSQL 15 server, under parallel clients that mix deploys, appends, named redeploys,
// deletes, claims, key mints, vanity claims and reads of the same drops, while the database (and
// with `s3`, the S3 bucket that holds the bytes) is stopped, as a crash would, and started again
// on the same data dir and port. Afterwards the checks read the database and the store and prove
// the invariants of docs/reliability.md.
//
// The steps live in tests/support/reliability/: stack (start), world (setup through the app),
// mix (what the clients do), outage (the load with the fault in the middle), checks (the
// invariants), report. scripts/reliability.ts is the command line; tests/e2e/reliability.test.ts
// runs a short version.
import { loadavg } from "node:os";
import { checkInvariants } from "./reliability/checks";
import { durableActions, setUpDurable } from "./reliability/durable";
import { recordingSender, type RequestRecord } from "./reliability/http";
import { loadMix } from "./reliability/mix";
import { writes } from "./reliability/named";
import { loadWithOutage } from "./reliability/outage";
import { buildReport, type ReliabilityOptions, type ReliabilityReport } from "./reliability/report";
import { startStack, stopStack, type Stack } from "./reliability/stack";
import { closeReceiver, setUpWorld, type World } from "./reliability/world";

export { formatReport, type ReliabilityOptions, type ReliabilityReport } from "./reliability/report";

export async function runReliability(opts: ReliabilityOptions): Promise<ReliabilityReport> {
  const log = opts.log ?? (() => {});
  const loadBefore = loadavg();
  let stack: Stack | undefined;
  let world: World | undefined;
  try {
    stack = await startStack(opts);
    const records: RequestRecord[] = [];
    const send = recordingSender(stack.agent, stack.app.port, records);
    const w = writes(send, stack.appHost);
    world = await setUpWorld(stack, send, w, log);
    const durable = await setUpDurable(stack, send);
    const mix = loadMix(stack, world, send, w, durableActions(stack, send, durable, world.named));
    const times = await loadWithOutage(stack, opts, mix.next, log);
    // A last deploy of every stable named drop after the run, so that recovery shows even in a short run.
    for (const n of world.named.filter((x) => x.stable)) await w.redeploy(n);
    log(`load done: ${records.length} requests`);
    const { proc } = stack.app;
    const app = {
      pidBefore: proc.pid,
      pidAfter: proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined,
    };
    const invariants = await checkInvariants({
      databaseUrl: stack.pg.url,
      storage: stack.storage,
      accounts: stack.accounts,
      world,
      seen: mix.seen,
      durable,
      retries: w.retries,
      records,
      times,
      app,
    });
    return buildReport({ opts, loadBefore, records, times, invariants, app });
  } finally {
    await closeReceiver(world?.receiver);
    if (stack) await stopStack(stack);
  }
}
