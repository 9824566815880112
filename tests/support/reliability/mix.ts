// The load: what each client does, picked at random by weight (docs/reliability.md lists the
// mix), and what the answers taught that the checks compare the end state with.
import { randomBytes } from "node:crypto";
import { jsonOf, pick, type Send } from "./http";
import type { durableActions } from "./durable";
import { versionsIn, type Named, type Writes } from "./named";
import type { Account, Stack } from "./stack";
import type { World } from "./world";

/** One read of a stable named drop's file. */
export interface Read {
  named: Named;
  path: string;
  body: Buffer;
  etag: string | undefined;
  status: number;
  start: number;
  end: number;
}

/** What the clients saw, for the checks. */
export interface Seen {
  reads: Read[];
  /** Two-request page loads, and those whose two responses were different versions. */
  pageLoads: { total: number; straddled: number };
  claimable: Array<{ slug: string; token: string }>;
  /** slug → accounts whose claim answered 200. */
  claims: Map<string, string[]>;
  vanityWins: Array<{ account: string; sub: string }>;
  freeDrops: string[];
  claimedBy: Map<string, Account>;
}

type Action = () => Promise<void>;

const VANITY_SUBS = ["relalpha", "relbravo", "relcharlie", "reldelta"];

/** The weighted mix of actions, and what they saw. */
export function loadMix(
  stack: Stack,
  world: World,
  send: Send,
  w: Writes,
  durable: ReturnType<typeof durableActions>,
): { next: () => Action; seen: Seen } {
  const seen: Seen = {
    reads: [],
    pageLoads: { total: 0, straddled: 0 },
    claimable: [],
    claims: new Map(),
    vanityWins: [],
    freeDrops: [],
    claimedBy: new Map(),
  };
  const { appHost } = stack;
  const { pros, teams, free, keysToken } = stack.accounts;
  const { named } = world;
  const json = (a: Account) => ({ authorization: `Bearer ${a.apiKey}`, "content-type": "application/json" });
  let appendSeq = 0;

  const anonymousDeploy: Action = async () => {
    // A drop with a claim token.
    const r = await send("POST /deploy (anonymous)", true, appHost, "/deploy", {
      method: "POST",
      headers: { "content-type": "text/html" },
      body: `<p>anon ${randomBytes(4).toString("hex")}</p>`,
    });
    if (r.status === 200) {
      const b = jsonOf<{ slug: string; claim_token: string }>(r);
      seen.claimable.push({ slug: b.slug, token: b.claim_token });
    }
  };
  const claim: Action = async () => {
    // One of the newest anonymous drops (often the same one as another client).
    const c =
      seen.claimable[seen.claimable.length - 1 - Math.floor(Math.random() * Math.min(3, seen.claimable.length))];
    if (!c) return;
    const who = Math.random() < 0.5 ? free : pros[1]!;
    const r = await send("POST /claim", true, appHost, "/claim", {
      method: "POST",
      headers: json(who),
      body: JSON.stringify({ slug: c.slug, claim_token: c.token }),
    });
    if (r.status !== 200) return;
    seen.claims.set(c.slug, [...(seen.claims.get(c.slug) ?? []), who.id]);
    seen.claimedBy.set(c.slug, who);
    if (who === free) seen.freeDrops.push(c.slug);
  };
  const redeploy: Action = async () => {
    await w.redeploy(pick(named));
  };
  const append: Action = async () => {
    // A few new files to the drop near its cap, or to a named drop.
    const toBig = Math.random() < 0.6;
    const n = pick(named);
    const slug = toBig ? world.bigSlug : n.slug;
    if (!slug) return;
    const count = 1 + Math.floor(Math.random() * 4);
    const files = Object.fromEntries(
      Array.from({ length: count }, () => [`more/${appendSeq++}.txt`, `append ${appendSeq}`]),
    );
    await send("POST /deploy/{slug} (append)", true, appHost, `/deploy/${slug}`, {
      method: "POST",
      headers: json(toBig ? pros[0]! : n.owner),
      body: JSON.stringify({ files }),
    });
  };
  const freeDeploy: Action = async () => {
    // A new drop on the free account at its cap.
    const r = await send("POST /deploy (free, at cap)", true, appHost, "/deploy", {
      method: "POST",
      headers: { ...json(free), "content-type": "text/html" },
      body: `<p>free ${randomBytes(4).toString("hex")}</p>`,
    });
    if (r.status === 200) seen.freeDrops.push(jsonOf<{ slug: string }>(r).slug);
  };
  const remove: Action = async () => {
    // A volatile named drop, a drop of the free account (making room), or a claimed drop.
    const del = (slug: string, who: Account) =>
      send("DELETE /drops/{slug}", true, appHost, `/drops/${slug}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${who.apiKey}` },
      });
    const roll = Math.random();
    if (roll < 0.4) {
      const n = pick(named.filter((x) => !x.stable && x.slug));
      if (n?.slug) await del(n.slug, n.owner);
    } else if (roll < 0.8) {
      const slug = seen.freeDrops.splice(Math.floor(Math.random() * seen.freeDrops.length), 1)[0];
      if (slug) await del(slug, free);
    } else {
      const slug = pick([...seen.claimedBy.keys()]);
      const who = slug ? seen.claimedBy.get(slug) : undefined;
      if (!slug || !who || who === free) return;
      seen.claimedBy.delete(slug);
      await del(slug, who);
    }
  };
  const pageLoad: Action = async () => {
    // index.html, then app.js, of a stable named drop.
    const n = pick(named.filter((x) => x.stable));
    if (!n.slug) return;
    seen.pageLoads.total++;
    const versions: string[] = [];
    for (const p of ["index.html", "app.js"] as const) {
      const start = Date.now();
      const r = await send("GET drop file", false, stack.dropHost(n.slug), `/${p}`);
      const etag = typeof r.headers.etag === "string" ? r.headers.etag : undefined;
      seen.reads.push({ named: n, path: p, body: r.body, etag, status: r.status, start, end: Date.now() });
      const v = versionsIn(r.body);
      if (v.size === 1) versions.push([...v][0]!);
    }
    if (versions.length === 2 && versions[0] !== versions[1]) seen.pageLoads.straddled++;
  };
  const rollback: Action = async () => {
    // A stable named drop back (or forward) to another retained version, retried once.
    const n = pick(named.filter((x) => x.stable && x.slug));
    if (!n?.slug) return;
    const list = await send("GET /drops/{slug}/versions", true, appHost, `/drops/${n.slug}/versions?limit=5`, {
      headers: { authorization: `Bearer ${n.owner.apiKey}` },
    });
    if (list.status !== 200) return;
    const v = jsonOf<{ live_version: number; versions: Array<{ version: number }> }>(list);
    const target = pick(v.versions.filter((x) => x.version !== v.live_version));
    if (!target) return;
    await w.sendTwice("POST /drops/{slug}/rollback", `/drops/${n.slug}/rollback`, {
      method: "POST",
      headers: json(n.owner),
      body: JSON.stringify({ version: target.version }),
    });
  };
  const mintKey: Action = async () => {
    await send("POST /keys", true, appHost, "/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${keysToken}` },
    });
  };
  const vanity: Action = async () => {
    const who = pick(teams);
    const sub = pick(VANITY_SUBS);
    const r = await send("POST /vanity", true, appHost, "/vanity", {
      method: "POST",
      headers: json(who),
      body: JSON.stringify({ sub }),
    });
    if (r.status === 201) seen.vanityWins.push({ account: who.id, sub });
  };
  const health: Action = async () => {
    await send("GET /healthz", false, appHost, "/healthz");
  };

  const weighted: Array<[number, Action]> = [
    [14, anonymousDeploy],
    [10, claim],
    [16, redeploy],
    [10, append],
    [8, freeDeploy],
    [8, remove],
    [28, pageLoad],
    [6, rollback],
    [2, mintKey],
    [2, vanity],
    [2, health],
    [2, durable.block],
    [3, durable.report],
    [3, durable.roleChange],
  ];
  const total = weighted.reduce((n, [weight]) => n + weight, 0);
  const next = (): Action => {
    let roll = Math.random() * total;
    for (const [weight, a] of weighted) {
      roll -= weight;
      if (roll < 0) return a;
    }
    return weighted[0]![1];
  };
  return { next, seen };
}
