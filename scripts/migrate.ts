// npm run db:migrate – apply drizzle/ migrations to the configured store (the app also does this on start).
import { openDb } from "../lib/db/client";
import { env } from "../lib/env";

const e = env();
const handle = await openDb({ databaseUrl: e.DATABASE_URL, dataDir: e.DATA_DIR });
console.log(`migrations applied (${handle.kind})`);
await handle.close();
