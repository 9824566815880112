import { ApiError } from "../errors";
import { metrics, type DeployVia } from "./registry";

// deploys_total{via,outcome} and deploy_bytes_total, counted by the deploy pipeline: the guard
// every deploy passes (lib/deploy/request.ts guardedDeploy), appendToDrop, and the store's
// commits (lib/deploy/store.ts).

/**
 * Runs one deploy and counts it once it ends: `ok`, `refused` (an answer about the request: its
 * input, plan, limits, rate) or `error` (the service failed). `via` is read at the end, so a
 * deploy can say what it turned out to be (a zip, a deploy by reference) once its body is read.
 */
export async function countDeploy<T>(via: () => DeployVia, task: () => Promise<T>): Promise<T> {
  try {
    const out = await task();
    metrics().deploys.inc({ via: via(), outcome: "ok" });
    return out;
  } catch (err) {
    const refused = err instanceof ApiError && err.status < 500;
    metrics().deploys.inc({ via: via(), outcome: refused ? "refused" : "error" });
    throw err;
  }
}

/** Adds the sizes of the files a deploy put in its version. */
export function countDeployBytes(rows: readonly { size: number }[]): void {
  let n = 0;
  for (const r of rows) n += r.size;
  metrics().deployBytes.inc(n);
}
