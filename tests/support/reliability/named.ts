// The named drops and their versions: every file of one version names that version throughout
// its body, so a response torn between two versions shows. Redeploys and rollbacks are sometimes
// sent twice with one Idempotency-Key, as a client retries after a timeout.
import { randomBytes } from "node:crypto";
import type { Answer, Send } from "./http";
import { jsonOf } from "./http";
import type { Account } from "./stack";

export const VERSIONED_PATHS = ["index.html", "app.js", "data.json"] as const;
const MARKER_REPEAT = 1200; // ~20 KB per file: more than one chunk on the wire and on disk
const marker = (version: string) => `ver:${version};`;
export const versionedBody = (version: string, file: string) => `${file}\n${marker(version).repeat(MARKER_REPEAT)}\n`;
export const MARKER_RE = /ver:([a-z0-9]+);/g;

/** The version ids a body carries. */
export const versionsIn = (body: Buffer | string): Set<string> =>
  new Set([...body.toString("utf8").matchAll(MARKER_RE)].map((m) => m[1]!));

export interface Named {
  owner: Account;
  name: string;
  /** Stable drops are redeployed and rolled back, never deleted: every read of them must answer. */
  stable: boolean;
  slug?: string;
  /** Every version id a redeploy of it tried. */
  attempted: Set<string>;
}

/** Two stable and two volatile named drops per pro account. */
export function namedDrops(pros: readonly Account[]): Named[] {
  return pros.flatMap((owner) => [
    ...[0, 1].map((i) => ({ owner, name: `site-${i}`, stable: true, attempted: new Set<string>() })),
    ...[0, 1].map((i) => ({ owner, name: `tmp-${i}`, stable: false, attempted: new Set<string>() })),
  ]);
}

export interface Retries {
  /** Answered writes sent again with their key. */
  total: number;
  replayed: number;
  violations: string[];
}

export interface Writes {
  retries: Retries;
  /** Sends a write twice with one Idempotency-Key: the retry must replay the first answer and write nothing. */
  sendTwice(
    route: string,
    pathname: string,
    o: { method: string; headers: Record<string, string>; body: string },
  ): Promise<Answer>;
  /** Deploys a new version of a named drop (three in ten times sent twice). */
  redeploy(n: Named): Promise<Answer>;
}

export function writes(send: Send, appHost: string): Writes {
  const retries: Retries = { total: 0, replayed: 0, violations: [] };
  const sendTwice: Writes["sendTwice"] = async (route, pathname, o) => {
    const headers = { ...o.headers, "idempotency-key": `rel-${randomBytes(8).toString("hex")}` };
    const first = await send(route, true, appHost, pathname, { ...o, headers });
    const again = await send(`${route} (retried)`, true, appHost, pathname, { ...o, headers });
    if (first.status !== 200) return first;
    retries.total++;
    if (again.status === 200 && again.headers["idempotent-replayed"] === "true" && again.body.equals(first.body))
      retries.replayed++;
    // While the database is down the retry may not be answered at all; anything else is wrong.
    else if (again.status !== 503)
      retries.violations.push(
        `${route} ${pathname}: retry answered ${again.status} (replayed: ${String(again.headers["idempotent-replayed"])})`,
      );
    return first;
  };
  const redeploy: Writes["redeploy"] = async (n) => {
    const version = randomBytes(6).toString("hex");
    n.attempted.add(version);
    const files = Object.fromEntries(VERSIONED_PATHS.map((p) => [p, versionedBody(version, p)]));
    const o = {
      method: "POST",
      headers: { authorization: `Bearer ${n.owner.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ files }),
    };
    const route = "POST /deploy?name (redeploy)";
    const r =
      Math.random() < 0.3
        ? await sendTwice(route, `/deploy?name=${n.name}`, o)
        : await send(route, true, appHost, `/deploy?name=${n.name}`, o);
    if (r.status === 200) n.slug = jsonOf<{ slug: string }>(r).slug;
    return r;
  };
  return { retries, sendTwice, redeploy };
}
