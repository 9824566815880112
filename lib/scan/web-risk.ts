import { mapLimit } from "../concurrency";

// Google Web Risk `uris.search` (https://cloud.google.com/web-risk/docs/reference/rest/v1/uris/search):
// one GET per URL, `{}` when Google knows nothing against it, `{threat: {threatTypes: […]}}`
// when it does. The Safe Browsing API is not used: its terms exclude commercial services. A
// look-up that fails (network, timeout, a non-2xx answer, a body that is not the API's) lets
// the URL through: it is counted in `failed` and logged, never a reason to refuse a deploy.

export const WEB_RISK_THREAT_TYPES = ["MALWARE", "SOCIAL_ENGINEERING", "UNWANTED_SOFTWARE"] as const;

/** Google's endpoint; WEB_RISK_API_URL replaces it (a stand-in in tests). */
export const WEB_RISK_DEFAULT_URL = "https://webrisk.googleapis.com";

/** Look-ups in flight at once, how long one may take, and all of one deploy's. */
const CONCURRENCY = 8;
const TIMEOUT_MS = 3_000;
const TOTAL_MS = 8_000;
/** Failures before any success after which the rest are not tried (an outage costs one round, not 25). */
const GIVE_UP_AFTER = CONCURRENCY;

export interface WebRiskClient {
  key: string;
  /** Base URL: `GET {base}/v1/uris:search?uri=…&threatTypes=…&key=…`. */
  base: string;
  timeoutMs?: number;
  /** The most all look-ups of one call may take; the rest count as failed. */
  totalMs?: number;
}

export interface WebRiskResult {
  /** The URLs Google lists, with the threat types it lists them for. */
  hits: Map<string, string[]>;
  /** Look-ups that failed (the URL went through unchecked). */
  failed: number;
}

/** The threat types Google lists one URL for ([] when none); throws when the look-up fails. */
async function searchUri(client: WebRiskClient, uri: string, deadline: AbortSignal): Promise<string[]> {
  const query = new URLSearchParams({ uri });
  for (const t of WEB_RISK_THREAT_TYPES) query.append("threatTypes", t);
  query.set("key", client.key);
  const res = await fetch(`${client.base.replace(/\/+$/, "")}/v1/uris:search?${query}`, {
    signal: AbortSignal.any([deadline, AbortSignal.timeout(client.timeoutMs ?? TIMEOUT_MS)]),
    headers: { accept: "application/json" },
  });
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${res.status}`);
  }
  const body = (await res.json()) as unknown;
  if (typeof body !== "object" || body === null) throw new Error("the answer is not a JSON object");
  const threat = (body as { threat?: { threatTypes?: unknown } }).threat;
  if (threat === undefined) return [];
  const types = threat.threatTypes;
  if (!Array.isArray(types) || !types.every((t) => typeof t === "string"))
    throw new Error("threat.threatTypes is not a list of names");
  return types;
}

/** Looks up each URL (distinct, in order); never throws. */
export async function lookUpUris(client: WebRiskClient, uris: readonly string[]): Promise<WebRiskResult> {
  const distinct = [...new Set(uris)];
  const hits = new Map<string, string[]>();
  const deadline = AbortSignal.timeout(client.totalMs ?? TOTAL_MS);
  let failed = 0;
  let succeeded = 0;
  let firstError: string | null = null;
  await mapLimit(distinct, CONCURRENCY, async (uri) => {
    if (deadline.aborted || (succeeded === 0 && failed >= GIVE_UP_AFTER)) {
      failed++;
      return;
    }
    try {
      const types = await searchUri(client, uri, deadline);
      succeeded++;
      if (types.length > 0) hits.set(uri, types);
    } catch (err) {
      failed++;
      // The request URL holds the key: only the cause is logged.
      firstError ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
  });
  if (failed > 0)
    console.warn(
      `[scan] ${failed} of ${distinct.length} Web Risk look-ups failed (${firstError ?? "out of time"}); those URLs went through unchecked`,
    );
  return { hits, failed };
}
