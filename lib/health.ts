import type { AppContext } from "./context";
import { describeCause } from "./errors";
import { pingDatabase } from "./db/queries";
import type { HealthResponse } from "./schemas";
import pkg from "../package.json";

// GET /healthz for operators and load balancers: whether the database and the file storage
// answer, and the version. No configuration, hosts or secrets are shown; a failing part's cause
// goes to the log, not to the response.

type PartStatus = "ok" | "unavailable";

const CHECK_TIMEOUT_MS = 3000;

async function probe(what: string, check: () => Promise<unknown>): Promise<PartStatus> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return "ok";
  } catch (err) {
    console.error(`[healthz] ${what} unavailable: ${describeCause(err)}`);
    return "unavailable";
  } finally {
    clearTimeout(timer);
  }
}

export async function health(ctx: AppContext): Promise<HealthResponse> {
  const [database, storage] = await Promise.all([
    probe("database", () => pingDatabase(ctx.db)),
    probe("storage", () => ctx.storage.list("healthz/")),
  ]);
  return { status: database === "ok" && storage === "ok" ? "ok" : "degraded", version: pkg.version, database, storage };
}
