// npm run cleanup – purge drops whose time is up (same job as GET /cron/cleanup).
// With the embedded PGlite store, stop the server first: PGlite is single-process.
import { createContext } from "../lib/context";
import { env } from "../lib/env";
import { runCleanup } from "../lib/drops/lifecycle";

const ctx = await createContext(env());
const result = await runCleanup(ctx);
console.log(
  `purged ${result.purged} drop(s)${result.slugs.length ? `: ${result.slugs.join(", ")}` : ""}; pruned ${result.versions_pruned} old version(s)`,
);
await ctx.dbHandle.close();
