// The built app (`node server.mjs`, as after `npm run build`) on a real PostgreSQL 15 server, under
// parallel clients that mix deploys, appends, named redeploys, deletes, claims, key mints, vanity
// claims and reads of the same drops, while the database is stopped (as a crash would) and started
// again on the same data dir and port. Afterwards a checker reads the database and the file store
// and proves the invariants of docs/reliability.md. Exits 1 on any violation.
//
// The run and the checker are one module of the test harness: scripts/reliability.ts is its
// command line, tests/e2e/reliability.test.ts runs a short version.
import { createHash, randomBytes } from "node:crypto";
import { Agent, createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import pg from "pg";
import { createContext } from "../../lib/context";
import { parseEnv } from "../../lib/env";
import { insertDropWithFiles } from "../../lib/db/queries";
import { newApiKey } from "../../lib/auth/keys";
import { newId, newSlug } from "../../lib/ids";
import { limits } from "../../lib/plans";
import { accountWithKey } from "./accounts";
import { startApp, type RunningApp } from "./app-server";
import { startOidcProvider, type OidcHarness } from "./oidc";
import { startPgServer, type PgServer } from "./pg-server";
import { registerResponseSecrets } from "./secrets";
import { FsStorage } from "../../lib/storage/fs";
import { S3Storage } from "../../lib/storage/s3";
import type { Storage } from "../../lib/storage/types";
import { startS3Server, type S3Server } from "./s3-server";

export interface ReliabilityOptions {
  /** Length of the load phase. */
  seconds: number;
  /** Parallel clients. */
  clients: number;
  /** When the database stops, in seconds after the load starts. */
  outageAt: number;
  /** How long the database stays down. */
  outageSeconds: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Bytes in an S3 bucket (s3rver on loopback) instead of the data directory; the bucket stops with the database. */
  s3?: boolean;
}

export interface Invariant {
  name: string;
  /** What was looked at, e.g. "412 drops". */
  checked: string;
  violations: string[];
}

export interface ReliabilityReport {
  options: Omit<ReliabilityOptions, "log">;
  machine: { cpus: number; model: string; memoryGb: number; loadBefore: number[]; loadAfter: number[]; node: string };
  /** Route → outcome (status code, or "transport error") → count. */
  outcomes: Record<string, Record<string, number>>;
  /** Requests that completed while the database was down, by route and outcome. */
  duringOutage: Record<string, Record<string, number>>;
  /** 2xx answers to database-backed requests that started after the restart. */
  successesAfterRestart: number;
  requests: number;
  invariants: Invariant[];
  faults: {
    databaseRestarts: number;
    outageMs: number;
    /** From the database's restart to the first 200 of GET /healthz. */
    recoveryMs: number | null;
    appPid: number | undefined;
    appPidAfter: number | undefined;
    appRestarts: number;
  };
  violations: number;
}

// --- HTTP ---------------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const TRANSPORT_ERROR = 0;

function call(agent: Agent, port: number, host: string, pathname: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest({ agent, host: "127.0.0.1", port, path: pathname, method: opts.method ?? "GET", headers: { host, ...(opts.headers ?? {}) }, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        // Under `npm test`: minted keys and claim tokens join the run's secrets check.
        if (host.startsWith("localhost")) registerResponseSecrets(res.headers, body.toString("utf8"));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on("error", () => resolve({ status: TRANSPORT_ERROR, headers: {}, body: Buffer.alloc(0) }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: TRANSPORT_ERROR, headers: {}, body: Buffer.alloc(0) }));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const jsonOf = <T>(a: Answer): T => JSON.parse(a.body.toString("utf8")) as T;
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;
/** A client address per request: the app trusts one proxy hop, so every request is its own client. */
const someAddress = () => `10.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

// --- the versioned files of a named drop ----------------------------------------------------------

/** Every file of one named-drop version names that version throughout its body. */
const VERSIONED_PATHS = ["index.html", "app.js", "data.json"] as const;
const MARKER_REPEAT = 1200; // ~20 KB per file: more than one chunk on the wire and on disk
const marker = (version: string) => `ver:${version};`;
const versionedBody = (version: string, file: string) => `${file}\n${marker(version).repeat(MARKER_REPEAT)}\n`;
const MARKER_RE = /ver:([a-z0-9]+);/g;

// --- the run ------------------------------------------------------------------------------------

interface Account {
  id: string;
  apiKey: string;
}

interface Record_ {
  route: string;
  status: number;
  retryAfter: boolean;
  start: number;
  end: number;
  /** The request needs the database to answer (not a read of a drop, not the health check). */
  usesDb: boolean;
}

export async function runReliability(opts: ReliabilityOptions): Promise<ReliabilityReport> {
  const log = opts.log ?? (() => {});
  const loadBefore = loadavg();
  let pgServer: PgServer | undefined;
  let oidc: OidcHarness | undefined;
  let app: RunningApp | undefined;
  let receiver: Server | undefined;
  let s3: S3Server | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: opts.clients * 2 });
  try {
    [pgServer, oidc] = await Promise.all([startPgServer({ database: "dropsite_reliability", durable: true }), startOidcProvider()]);
    const pgs = pgServer;
    if (opts.s3) s3 = await startS3Server();
    // WEBHOOKS_ALLOW_PRIVATE: the pro accounts' webhooks point at a receiver on loopback.
    const vars = { ...(s3?.vars ?? {}), DATABASE_URL: pgs.url, OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId, TRUST_PROXY: "1", RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000000", WEBHOOKS_ALLOW_PRIVATE: "1" };

    // Accounts through the real queries (migrations apply on open), before the app starts.
    const setup = await createContext(parseEnv({ DATABASE_URL: pgs.url, DATA_DIR: tmpdir(), NODE_ENV: "test" }));
    const pros: Account[] = [];
    const teams: Account[] = [];
    let free: Account;
    try {
      for (let i = 0; i < 2; i++) {
        const a = await accountWithKey(setup, "pro");
        pros.push({ id: a.account.id, apiKey: a.apiKey });
      }
      for (let i = 0; i < 3; i++) {
        const a = await accountWithKey(setup, "team");
        teams.push({ id: a.account.id, apiKey: a.apiKey });
      }
      const f = await accountWithKey(setup, "free");
      free = { id: f.account.id, apiKey: f.apiKey };
      // The free account starts 3 drops below its cap (empty drops, through the insert the app uses).
      const maxFree = limits.free.maxDrops!;
      for (let i = 0; i < maxFree - 3; i++) {
        const now = new Date();
        await insertDropWithFiles(setup.db, { id: newId(), slug: newSlug(), ownerId: free.id, name: null, fileCount: 0, totalBytes: 0, createdAt: now, updatedAt: now }, []);
      }
    } finally {
      await setup.dbHandle.close();
    }

    app = await startApp(vars);
    const port = app.port;
    const appHost = `localhost:${port}`;
    const dropHost = (slug: string) => `${slug}.${app!.serveDomain}`;
    const appPid = app.proc.pid;
    const storage: Storage = s3
      ? new S3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, region: "us-east-1", credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }, forcePathStyle: true })
      : new FsStorage(path.join(app.dataDir, "blobs"));

    // The keys account: created by its first mint (an ID token), then given keys up to 2 below the cap.
    const keysToken = await oidc.mintIdToken({ sub: `rel-keys-${randomBytes(4).toString("hex")}`, email: "keys@example.test" });
    const firstMint = await call(agent, port, appHost, "/keys", { method: "POST", headers: { authorization: `Bearer ${keysToken}`, "x-forwarded-for": someAddress() } });
    if (firstMint.status !== 201) throw new Error(`setup: POST /keys answered ${firstMint.status}: ${firstMint.body.toString()}`);
    const keysAccountId = jsonOf<{ accountId: string }>(firstMint).accountId;
    {
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      try {
        for (let i = 0; i < limits.free.maxKeys - 3; i++) {
          const k = newApiKey();
          await db.query("insert into api_keys (id, account_id, prefix, note) values ($1, $2, $3, 'reliability')", [k.keyId, keysAccountId, k.prefix]);
        }
      } finally {
        await db.end();
      }
    }

    const auth = (a: Account) => ({ authorization: `Bearer ${a.apiKey}` });
    const records: Record_[] = [];
    const send = async (route: string, usesDb: boolean, host: string, pathname: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
      const start = Date.now();
      const a = await call(agent, port, host, pathname, { ...o, headers: { "x-forwarded-for": someAddress(), ...(o.headers ?? {}) } });
      records.push({ route, status: a.status, retryAfter: a.headers["retry-after"] !== undefined, start, end: Date.now(), usesDb });
      return a;
    };
    const jsonBody = (files: Record<string, string>) => JSON.stringify({ files });

    // The drop that appends fill towards its cap: deployed and appended to through the app.
    const filesCap = limits.pro.filesPerDrop;
    const perRequest = limits.pro.filesPerRequest;
    const bigOwner = pros[0]!;
    const prefill = filesCap - 12;
    const batch = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`fill/${String(from + i).padStart(5, "0")}.txt`, "x"]));
    // Each pro account has a webhook on a receiver that verifies every signature (standardwebhooks)
    // and keeps the event ids it accepted; the app process's worker delivers while the load runs.
    const hooks = { secrets: new Map<string, string>(), received: new Set<string>(), unverified: 0 };
    receiver = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const secret = hooks.secrets.get(req.url ?? "");
        try {
          const event = new Webhook(secret ?? "whsec_AAAA").verify(body, req.headers as Record<string, string>) as { id: string };
          hooks.received.add(event.id);
          res.writeHead(204).end();
        } catch {
          hooks.unverified++;
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, "127.0.0.1", r));
    for (const [i, owner] of pros.entries()) {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook-${i}`;
      const r = await send("setup", true, appHost, "/webhooks", { method: "POST", headers: { ...auth(owner), "content-type": "application/json" }, body: JSON.stringify({ url }) });
      if (r.status !== 201) throw new Error(`setup: POST /webhooks answered ${r.status}: ${r.body.toString()}`);
      hooks.secrets.set(`/hook-${i}`, jsonOf<{ secret: string }>(r).secret);
    }
    const bigFirst = await send("setup", true, appHost, "/deploy", { method: "POST", headers: { ...auth(bigOwner), "content-type": "application/json" }, body: jsonBody(batch(0, perRequest)) });
    if (bigFirst.status !== 200) throw new Error(`setup deploy answered ${bigFirst.status}: ${bigFirst.body.toString()}`);
    const bigSlug = jsonOf<{ slug: string }>(bigFirst).slug;
    for (let at = perRequest; at < prefill; at += perRequest) {
      const r = await send("setup", true, appHost, `/deploy/${bigSlug}`, { method: "POST", headers: { ...auth(bigOwner), "content-type": "application/json" }, body: jsonBody(batch(at, Math.min(perRequest, prefill - at))) });
      if (r.status !== 200) throw new Error(`setup append answered ${r.status}: ${r.body.toString()}`);
    }
    log(`setup: drop ${bigSlug} holds ${prefill} files; the free account holds ${limits.free.maxDrops! - 3} drops; the keys account ${limits.free.maxKeys - 2} keys`);

    // Named drops: stable ones (redeployed, never deleted: every read of them must answer) and
    // volatile ones (redeployed and deleted).
    interface Named {
      owner: Account;
      name: string;
      stable: boolean;
      slug?: string;
      attempted: Set<string>;
    }
    const named: Named[] = [];
    for (const owner of pros) {
      for (let i = 0; i < 2; i++) named.push({ owner, name: `site-${i}`, stable: true, attempted: new Set() });
      for (let i = 0; i < 2; i++) named.push({ owner, name: `tmp-${i}`, stable: false, attempted: new Set() });
    }
    // Writes sent twice with one Idempotency-Key, as a client retries after a timeout: the retry
    // must replay the first answer (Idempotent-Replayed: true, the same body) and write nothing.
    const retries = { total: 0, replayed: 0, violations: [] as string[] };
    const sendTwice = async (route: string, pathname: string, o: { method: string; headers: Record<string, string>; body: string }) => {
      const headers = { ...o.headers, "idempotency-key": `rel-${randomBytes(8).toString("hex")}` };
      const first = await send(route, true, appHost, pathname, { ...o, headers });
      const again = await send(`${route} (retried)`, true, appHost, pathname, { ...o, headers });
      if (first.status !== 200) return first;
      retries.total++;
      if (again.status === 200 && again.headers["idempotent-replayed"] === "true" && again.body.equals(first.body)) retries.replayed++;
      // While the database is down the retry may not be answered at all; anything else is wrong.
      else if (again.status !== 503) retries.violations.push(`${route} ${pathname}: retry answered ${again.status} (replayed: ${String(again.headers["idempotent-replayed"])})`);
      return first;
    };
    const redeploy = async (n: Named) => {
      const version = randomBytes(6).toString("hex");
      n.attempted.add(version);
      const files = Object.fromEntries(VERSIONED_PATHS.map((p) => [p, versionedBody(version, p)]));
      const o = { method: "POST", headers: { ...auth(n.owner), "content-type": "application/json" }, body: jsonBody(files) };
      const r = Math.random() < 0.3 ? await sendTwice("POST /deploy?name (redeploy)", `/deploy?name=${n.name}`, o) : await send("POST /deploy?name (redeploy)", true, appHost, `/deploy?name=${n.name}`, o);
      if (r.status === 200) n.slug = jsonOf<{ slug: string }>(r).slug;
      return r;
    };
    for (const n of named) {
      const r = await redeploy(n);
      if (r.status !== 200) throw new Error(`setup: named deploy answered ${r.status}: ${r.body.toString()}`);
    }

    // What the checker compares the end state with.
    const reads: Array<{ named: Named; path: string; body: Buffer; etag: string | undefined; status: number; start: number; end: number }> = [];
    const pageLoads = { total: 0, straddled: 0 };
    const claimable: Array<{ slug: string; token: string }> = [];
    const claims = new Map<string, string[]>(); // slug → accounts whose claim answered 200
    const vanityWins: Array<{ account: string; sub: string }> = [];
    const freeDrops: string[] = [];
    const claimedBy = new Map<string, Account>();
    const vanitySubs = ["relalpha", "relbravo", "relcharlie", "reldelta"];
    let appendSeq = 0;

    type Action = () => Promise<void>;
    const actions: Array<[number, Action]> = [
      [
        14,
        async () => {
          // Anonymous deploy: a drop with a claim token.
          const r = await send("POST /deploy (anonymous)", true, appHost, "/deploy", { method: "POST", headers: { "content-type": "text/html" }, body: `<p>anon ${randomBytes(4).toString("hex")}</p>` });
          if (r.status === 200) {
            const b = jsonOf<{ slug: string; claim_token: string }>(r);
            claimable.push({ slug: b.slug, token: b.claim_token });
          }
        },
      ],
      [
        10,
        async () => {
          // Claim one of the newest anonymous drops (often the same one as another client).
          const c = claimable[claimable.length - 1 - Math.floor(Math.random() * Math.min(3, claimable.length))];
          if (!c) return;
          const who = Math.random() < 0.5 ? free : pros[1]!;
          const r = await send("POST /claim", true, appHost, "/claim", { method: "POST", headers: { ...auth(who), "content-type": "application/json" }, body: JSON.stringify({ slug: c.slug, claim_token: c.token }) });
          if (r.status === 200) {
            claims.set(c.slug, [...(claims.get(c.slug) ?? []), who.id]);
            claimedBy.set(c.slug, who);
            if (who === free) freeDrops.push(c.slug);
          }
        },
      ],
      [
        16,
        async () => {
          await redeploy(pick(named));
        },
      ],
      [
        10,
        async () => {
          // Append a few new files to the drop near its cap, or to a named drop.
          const toBig = Math.random() < 0.6;
          const n = pick(named);
          const slug = toBig ? bigSlug : n.slug;
          if (!slug) return;
          const count = 1 + Math.floor(Math.random() * 4);
          const files = Object.fromEntries(Array.from({ length: count }, () => [`more/${appendSeq++}.txt`, `append ${appendSeq}`]));
          await send("POST /deploy/{slug} (append)", true, appHost, `/deploy/${slug}`, { method: "POST", headers: { ...auth(toBig ? bigOwner : n.owner), "content-type": "application/json" }, body: jsonBody(files) });
        },
      ],
      [
        8,
        async () => {
          // A new drop on the free account at its cap.
          const r = await send("POST /deploy (free, at cap)", true, appHost, "/deploy", { method: "POST", headers: { ...auth(free), "content-type": "text/html" }, body: `<p>free ${randomBytes(4).toString("hex")}</p>` });
          if (r.status === 200) freeDrops.push(jsonOf<{ slug: string }>(r).slug);
        },
      ],
      [
        8,
        async () => {
          // Delete: a volatile named drop, a drop of the free account (making room), or a claimed drop.
          const roll = Math.random();
          if (roll < 0.4) {
            const n = pick(named.filter((x) => !x.stable && x.slug));
            if (!n?.slug) return;
            await send("DELETE /drops/{slug}", true, appHost, `/drops/${n.slug}`, { method: "DELETE", headers: auth(n.owner) });
          } else if (roll < 0.8) {
            const slug = freeDrops.splice(Math.floor(Math.random() * freeDrops.length), 1)[0];
            if (!slug) return;
            await send("DELETE /drops/{slug}", true, appHost, `/drops/${slug}`, { method: "DELETE", headers: auth(free) });
          } else {
            const slug = pick([...claimedBy.keys()]);
            const who = slug ? claimedBy.get(slug) : undefined;
            if (!slug || !who || who === free) return;
            claimedBy.delete(slug);
            await send("DELETE /drops/{slug}", true, appHost, `/drops/${slug}`, { method: "DELETE", headers: auth(who) });
          }
        },
      ],
      [
        28,
        async () => {
          // A page load of a stable named drop: index.html, then app.js.
          const n = pick(named.filter((x) => x.stable));
          if (!n.slug) return;
          pageLoads.total++;
          const versions: string[] = [];
          for (const p of ["index.html", "app.js"] as const) {
            const start = Date.now();
            const r = await send("GET drop file", false, dropHost(n.slug), `/${p}`);
            const etag = typeof r.headers.etag === "string" ? r.headers.etag : undefined;
            reads.push({ named: n, path: p, body: r.body, etag, status: r.status, start, end: Date.now() });
            const v = new Set([...r.body.toString("utf8").matchAll(MARKER_RE)].map((m) => m[1]));
            if (v.size === 1) versions.push([...v][0]!);
          }
          if (versions.length === 2 && versions[0] !== versions[1]) pageLoads.straddled++;
        },
      ],
      [
        6,
        async () => {
          // Roll a stable named drop back (or forward) to another retained version, retried once.
          const n = pick(named.filter((x) => x.stable && x.slug));
          if (!n?.slug) return;
          const list = await send("GET /drops/{slug}/versions", true, appHost, `/drops/${n.slug}/versions?limit=5`, { headers: auth(n.owner) });
          if (list.status !== 200) return;
          const v = jsonOf<{ live_version: number; versions: Array<{ version: number }> }>(list);
          const target = pick(v.versions.filter((x) => x.version !== v.live_version));
          if (!target) return;
          await sendTwice("POST /drops/{slug}/rollback", `/drops/${n.slug}/rollback`, {
            method: "POST",
            headers: { ...auth(n.owner), "content-type": "application/json" },
            body: JSON.stringify({ version: target.version }),
          });
        },
      ],
      [
        2,
        async () => {
          await send("POST /keys", true, appHost, "/keys", { method: "POST", headers: { authorization: `Bearer ${keysToken}` } });
        },
      ],
      [
        2,
        async () => {
          const who = pick(teams);
          const sub = pick(vanitySubs);
          const r = await send("POST /vanity", true, appHost, "/vanity", { method: "POST", headers: { ...auth(who), "content-type": "application/json" }, body: JSON.stringify({ sub }) });
          if (r.status === 201) vanityWins.push({ account: who.id, sub });
        },
      ],
      [
        2,
        async () => {
          await send("GET /healthz", false, appHost, "/healthz");
        },
      ],
    ];
    const totalWeight = actions.reduce((n, [w]) => n + w, 0);
    const nextAction = (): Action => {
      let roll = Math.random() * totalWeight;
      for (const [w, a] of actions) {
        roll -= w;
        if (roll < 0) return a;
      }
      return actions[0]![1];
    };

    // --- load, with the database stopped and started in the middle ------------------------------
    const loadStart = Date.now();
    const deadline = loadStart + opts.seconds * 1000;
    let haltedAt = 0;
    let resumedAt = 0;
    // When the start command was issued: from here the server may accept connections before
    // the command returns, so the "must answer 503" window ends here, not at resumedAt.
    let resumingAt = 0;
    let recoveryMs: number | null = null;
    const fault = (async () => {
      await new Promise((r) => setTimeout(r, opts.outageAt * 1000));
      log(`t=${((Date.now() - loadStart) / 1000).toFixed(1)}s: stopping PostgreSQL (immediate shutdown)${s3 ? " and the S3 bucket" : ""}`);
      await Promise.all([pgs.halt(), s3?.stop()]);
      haltedAt = Date.now();
      await new Promise((r) => setTimeout(r, opts.outageSeconds * 1000));
      resumingAt = Date.now();
      await Promise.all([pgs.resume(), s3?.start()]);
      resumedAt = Date.now();
      log(`t=${((resumedAt - loadStart) / 1000).toFixed(1)}s: PostgreSQL started again on the same data dir and port${s3 ? "; the S3 bucket answers again" : ""}`);
      // The same app process must recover by itself.
      for (;;) {
        const h = await call(agent, port, appHost, "/healthz");
        if (h.status === 200) {
          recoveryMs = Date.now() - resumedAt;
          break;
        }
        if (Date.now() - resumedAt > 60_000) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      log(`recovered ${recoveryMs === null ? "NOT within 60 s" : `${recoveryMs} ms after the restart`}`);
    })();
    const client = async () => {
      while (Date.now() < deadline) await nextAction()();
    };
    await Promise.all([...Array.from({ length: opts.clients }, client), fault]);
    // A last deploy after the run, so that recovery is shown even in a short run.
    for (const n of named.filter((x) => x.stable)) await redeploy(n);
    log(`load done: ${records.length} requests in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);

    const alive = app.proc.exitCode === null && app.proc.signalCode === null;
    const appPidAfter = alive ? app.proc.pid : undefined;

    // --- the checker -------------------------------------------------------------------------------
    const invariants: Invariant[] = [];
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      const q = async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[];

      // 1. Files per drop.
      {
        const rows = await q<{ id: string; slug: string; file_count: number; n: string }>(
          // The live version's rows: every version keeps all its own file rows.
          "select d.id, d.slug, d.file_count, (select count(*) from files f where f.drop_id = d.id and f.version = d.live_version) as n from drops d",
        );
        const v: string[] = [];
        for (const r of rows) {
          if (Number(r.n) > filesCap) v.push(`drop ${r.slug} has ${r.n} files (cap ${filesCap})`);
          if (Number(r.n) !== r.file_count) v.push(`drop ${r.slug}: file_count ${r.file_count} but ${r.n} file rows in its live version`);
        }
        // Every retained version has exactly the file rows it says it has.
        const versions = await q<{ slug: string; version: number; file_count: number; n: string }>(
          "select d.slug, v.version, v.file_count, (select count(*) from files f where f.drop_id = v.drop_id and f.version = v.version) as n from drop_versions v join drops d on d.id = v.drop_id",
        );
        for (const r of versions) {
          if (Number(r.n) !== r.file_count) v.push(`drop ${r.slug} version ${r.version}: file_count ${r.file_count} but ${r.n} file rows`);
        }
        const big = rows.find((r) => r.slug === bigSlug);
        invariants.push({ name: "files per drop ≤ 10,000 (and file_count = file rows, per version)", checked: `${rows.length} drops, ${versions.length} versions; the drop appended towards the cap ends with ${big?.n ?? "?"} files`, violations: v });
      }

      // 2. One drop per account and name.
      {
        const dup = await q<{ owner_id: string; name: string; n: string }>("select owner_id, name, count(*) as n from drops where name is not null group by owner_id, name having count(*) > 1");
        const total = await q<{ n: string }>("select count(*) as n from drops where name is not null");
        invariants.push({ name: "one drop per account and name", checked: `${total[0]?.n ?? 0} named drops`, violations: dup.map((d) => `${d.owner_id}/${d.name}: ${d.n} drops`) });
      }

      // 3. Caps: keys, drops per account, vanity.
      {
        const v: string[] = [];
        const keys = await q<{ account_id: string; n: string }>("select account_id, count(*) as n from api_keys where revoked_at is null group by account_id");
        const plans = new Map((await q<{ id: string; plan: keyof typeof limits; vanity_sub: string | null }>("select id, plan, vanity_sub from accounts")).map((a) => [a.id, a]));
        for (const k of keys) {
          const max = limits[plans.get(k.account_id)?.plan ?? "free"].maxKeys;
          if (Number(k.n) > max) v.push(`account ${k.account_id} has ${k.n} live keys (cap ${max})`);
        }
        const keysLive = keys.find((k) => k.account_id === keysAccountId)?.n ?? "0";
        const owned = await q<{ owner_id: string; n: string }>("select owner_id, count(*) as n from drops where owner_id is not null group by owner_id");
        for (const o of owned) {
          const max = limits[plans.get(o.owner_id)?.plan ?? "free"].maxDrops;
          if (max !== null && Number(o.n) > max) v.push(`account ${o.owner_id} owns ${o.n} drops (cap ${max})`);
        }
        const freeOwned = owned.find((o) => o.owner_id === free.id)?.n ?? "0";
        const bySub = new Map<string, number>();
        const byAccount = new Map<string, number>();
        for (const w of vanityWins) {
          bySub.set(w.sub, (bySub.get(w.sub) ?? 0) + 1);
          byAccount.set(w.account, (byAccount.get(w.account) ?? 0) + 1);
          if (plans.get(w.account)?.vanity_sub !== w.sub) v.push(`vanity ${w.sub} answered 201 for ${w.account}, whose sub is ${plans.get(w.account)?.vanity_sub ?? "none"}`);
        }
        for (const [sub, n] of bySub) if (n > 1) v.push(`vanity ${sub} answered 201 ${n} times`);
        for (const [acc, n] of byAccount) if (n > 1) v.push(`account ${acc} won ${n} vanity claims`);
        for (const [slug, winners] of claims) if (winners.length > 1) v.push(`drop ${slug} claimed ${winners.length} times`);
        for (const [slug, winners] of claims) {
          const [row] = await q<{ owner_id: string | null }>("select owner_id from drops where slug = $1", [slug]);
          if (row && row.owner_id !== winners[0]) v.push(`drop ${slug} claimed by ${winners[0]} but owned by ${row.owner_id}`);
        }
        invariants.push({
          name: "every cap held (keys, drops per account, vanity, one claim per drop)",
          checked: `${keys.length} accounts' keys (the minting account ends with ${keysLive} of ${limits.free.maxKeys}); ${owned.length} accounts' drops (the free account ends with ${freeOwned} of ${limits.free.maxDrops}); ${vanityWins.length} vanity wins; ${claims.size} claimed drops`,
          violations: v,
        });
      }

      // 4. Stored bytes and rows agree.
      {
        const v: string[] = [];
        // A store that cannot list (s3rver answers 500 for an object cut off by its own stop) is a finding, not a crash.
        const stored = new Set(await storage.list("").catch((err: unknown) => (v.push(`the store could not list its objects (${err instanceof Error ? err.message : String(err)})`), [] as string[])));
        const contents = await q<{ scope: string; sha256: string; size: string; storage_ref: string | null; pins: number }>("select scope, sha256, size, storage_ref, pins from contents");
        const byRef = new Map(contents.filter((c) => c.storage_ref).map((c) => [c.storage_ref!, c]));
        // A row with storage_ref null says "no bytes stored": a deploy cut off before it marked its
        // bytes, or a purge cut off between its two steps. A later pin stores the bytes anew and a
        // later purge removes the row (and any bytes at its key).
        const unmarked = contents.filter((c) => c.storage_ref === null);
        const unmarkedKeys = new Set(unmarked.map((c) => `c/${c.scope}/${c.sha256}`));
        for (const c of contents) {
          if (c.storage_ref === null) continue;
          if (!stored.has(c.storage_ref)) {
            const users = await q<{ slug: string; path: string; name: string | null }>(
              "select d.slug, f.path, d.name from files f join drops d on d.id = f.drop_id where f.scope = $1 and f.sha256 = $2 limit 3",
              [c.scope, c.sha256],
            );
            const usedBy = users.map((u) => `${u.name ?? u.slug}/${u.path}`).join(", ") || "no file";
            v.push(`content ${c.scope}/${c.sha256}: row without bytes (pins ${c.pins}; used by ${usedBy})`);
            continue;
          }
          let bytes: Buffer;
          try {
            bytes = await readStored(storage, c.storage_ref);
          } catch (err) {
            v.push(`content ${c.scope}/${c.sha256}: its stored bytes could not be read (${err instanceof Error ? err.message : String(err)})`);
            continue;
          }
          if (bytes.byteLength !== Number(c.size) || sha256(bytes) !== c.sha256) v.push(`content ${c.scope}/${c.sha256}: stored bytes differ from the row`);
        }
        let unmarkedBytes = 0;
        for (const key of stored) {
          if (key.startsWith("healthz/") || byRef.has(key)) continue;
          if (unmarkedKeys.has(key)) unmarkedBytes++;
          else v.push(`bytes without a row: ${key}`);
        }
        const orphanFiles = await q<{ slug: string; path: string }>(
          "select d.slug, f.path from files f join drops d on d.id = f.drop_id left join contents c on c.scope = f.scope and c.sha256 = f.sha256 where c.storage_ref is null or c.storage_ref <> f.storage_ref limit 20",
        );
        for (const f of orphanFiles) v.push(`file ${f.slug}/${f.path} references no stored content`);
        const fileRows = await q<{ n: string }>("select count(*) as n from files");
        invariants.push({
          name: "no bytes in storage without a row, no row without bytes",
          checked: `${stored.size} stored objects, ${contents.length} content rows (each re-hashed), ${fileRows[0]?.n ?? 0} file rows; ${unmarked.length} rows of cut-off requests marked as holding no bytes (${unmarkedBytes} with bytes left at their key for a later purge)`,
          violations: v,
        });
      }

      // 5. No response mixed two versions of a named drop.
      {
        const v: string[] = [];
        let checked = 0;
        for (const r of reads) {
          if (r.status !== 200) continue;
          checked++;
          const text = r.body.toString("utf8");
          const versions = new Set([...text.matchAll(MARKER_RE)].map((m) => m[1]!));
          const where = `${r.named.owner.id}/${r.named.name}/${r.path}`;
          if (versions.size !== 1) {
            v.push(`${where}: one response carried ${versions.size} versions`);
            continue;
          }
          const [version] = [...versions] as [string];
          if (!r.named.attempted.has(version)) v.push(`${where}: version ${version} was never deployed`);
          if (text !== versionedBody(version, r.path)) v.push(`${where}: body is not exactly version ${version}'s file`);
          if (r.etag !== `"${sha256(r.body)}"`) v.push(`${where}: ETag ${r.etag ?? "(none)"} is not the body's SHA-256`);
        }
        const notOk = reads.filter((r) => r.status !== 200 && r.status !== 503);
        for (const r of notOk.slice(0, 20)) v.push(`${r.named.name}/${r.path}: read of a stable named drop answered ${r.status}`);
        invariants.push({
          name: "no response mixed two versions of a named drop",
          checked: `${checked} file responses of ${named.filter((n) => n.stable).length} named drops (${[...named].reduce((n, x) => n + x.attempted.size, 0)} versions deployed); ${pageLoads.straddled} of ${pageLoads.total} two-request page loads saw a redeploy between their requests (allowed: each response is one version)`,
          violations: v,
        });
      }

      // An idempotent retry replays the first answer.
      invariants.push({
        name: "an idempotent retry (redeploys, rollbacks) replays the first answer and writes nothing",
        checked: `${retries.total} answered writes retried with their key (${retries.replayed} replayed)`,
        violations: retries.violations,
      });

      // 6. The outbox: every committed change has exactly one event, none without its change, and
      // every event owed to a webhook is delivered (signature verified) or still being retried.
      {
        const v: string[] = [];
        const writeType: Record<string, string> = { deploy: "drop.deployed", replace: "drop.replaced", append: "drop.appended" };
        type Ev = { id: string; account_id: string; type: string; slug: string; version: number | null };
        const events = await q<Ev>("select id, account_id, type, data->>'slug' as slug, (data->>'version')::int as version from events");
        const bySlug = new Map<string, Ev[]>();
        for (const e of events) bySlug.set(e.slug, [...(bySlug.get(e.slug) ?? []), e]);
        const versions = await q<{ slug: string; owner_id: string | null; version: number; kind: string }>(
          "select d.slug, d.owner_id, v.version, v.kind from drop_versions v join drops d on d.id = v.drop_id",
        );
        for (const r of versions) {
          const mine = bySlug.get(r.slug) ?? [];
          if (r.owner_id === null) {
            if (mine.length > 0) v.push(`anonymous drop ${r.slug} has ${mine.length} events (nobody's drops notify no one)`);
            continue;
          }
          const n = mine.filter((e) => e.type === writeType[r.kind] && e.version === r.version).length;
          // Versions written while the drop was anonymous (before its claim) have no event of their own.
          const claimed = mine.find((e) => e.type === "drop.claimed");
          if (n !== 1 && !(n === 0 && claimed && (claimed.version ?? 0) >= r.version)) v.push(`drop ${r.slug} version ${r.version} (${r.kind}) has ${n} events`);
        }
        const live = new Set((await q<{ slug: string }>("select slug from drops")).map((r) => r.slug));
        const kept = new Set(versions.map((r) => `${r.slug}/${r.version}`));
        for (const [slug, list] of bySlug) {
          const ends = list.filter((e) => e.type === "drop.deleted" || e.type === "drop.expired").length;
          if (live.has(slug) && ends > 0) v.push(`drop ${slug} exists but has ${ends} delete events`);
          if (!live.has(slug) && ends !== 1) v.push(`drop ${slug} is gone with ${ends} delete events`);
          if (!live.has(slug)) continue;
          for (const e of list) {
            if (Object.values(writeType).includes(e.type) && !kept.has(`${slug}/${e.version}`)) v.push(`event ${e.id} (${e.type}) names version ${e.version} of ${slug}, which does not exist`);
            if (e.type === "drop.rolled_back" && !kept.has(`${slug}/${e.version}`)) v.push(`event ${e.id} rolls ${slug} back to version ${e.version}, which does not exist`);
          }
        }
        // Deliveries: let the app's worker finish what is due (a failed attempt retries after 30 s).
        const owedNow = async () => Number((await q<{ n: string }>("select count(*) as n from webhook_deliveries where state = 'pending'"))[0]?.n ?? 0);
        for (let i = 0; i < 600 && (await owedNow()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
        const states = await q<{ state: string; n: string }>("select state, count(*) as n from webhook_deliveries group by state");
        const count = (st: string) => Number(states.find((x) => x.state === st)?.n ?? 0);
        if (count("failed") > 0) v.push(`${count("failed")} deliveries failed for good`);
        const hooked = await q<{ event_id: string; webhook_id: string; created: Date; hook_created: Date }>(
          "select e.id as event_id, w.id as webhook_id, e.created_at as created, w.created_at as hook_created from events e join webhooks w on w.account_id = e.account_id left join webhook_deliveries d on d.event_id = e.id and d.webhook_id = w.id where d.event_id is null and e.created_at >= w.created_at",
        );
        for (const h of hooked.slice(0, 10)) v.push(`event ${h.event_id} has no delivery for webhook ${h.webhook_id}`);
        const delivered = await q<{ event_id: string }>("select event_id from webhook_deliveries where state = 'delivered'");
        for (const d of delivered) if (!hooks.received.has(d.event_id)) v.push(`event ${d.event_id} is marked delivered but the receiver never accepted it`);
        if (hooks.unverified > 0) v.push(`${hooks.unverified} deliveries failed signature verification`);
        invariants.push({
          name: "every committed change has exactly one event; every event is delivered or still retrying",
          checked: `${events.length} events against ${versions.length} versions and ${live.size} drops; deliveries ${count("delivered")} delivered, ${count("pending")} still retrying, ${count("failed")} failed; the receiver verified ${hooks.received.size} distinct events`,
          violations: v,
        });
      }

      // 7. Behaviour while the database was down, and recovery.
      {
        const v: string[] = [];
        // Requests whose whole life fell inside the outage (one that started earlier may have read
        // what it needed before the stop, and rightly answers from that; one that ended after the
        // start command was issued may have reached the database as it came up).
        const down = records.filter((r) => r.route !== "setup" && r.end >= haltedAt && r.end <= resumedAt);
        const downDb = down.filter((r) => r.usesDb && r.start >= haltedAt && r.end <= resumingAt);
        for (const r of downDb) if (r.status !== 503) v.push(`${r.route} answered ${r.status} while the database was down`);
        const no503 = records.filter((r) => r.status === 503 && !r.retryAfter);
        for (const r of no503.slice(0, 10)) v.push(`${r.route}: 503 without Retry-After`);
        const bad = records.filter((r) => r.status >= 500 && r.status !== 503);
        for (const r of bad.slice(0, 10)) v.push(`${r.route}: ${r.status}`);
        const lost = records.filter((r) => r.status === TRANSPORT_ERROR);
        for (const r of lost.slice(0, 10)) v.push(`${r.route}: connection failed or timed out`);
        if (downDb.filter((r) => r.status === 503).length === 0) v.push("no 503 was seen while the database was down");
        if (recoveryMs === null) v.push("GET /healthz did not answer 200 within 60 s of the restart");
        const after = records.filter((r) => r.usesDb && r.start > resumedAt && r.status >= 200 && r.status < 300);
        if (after.length === 0) v.push("no database-backed request succeeded after the restart");
        if (!alive || appPidAfter !== appPid) v.push(`the app process did not survive (pid ${appPid} → ${appPidAfter ?? "gone"})`);
        invariants.push({
          name: "503 with Retry-After while the database was down; recovery without restarting the app",
          checked: `${down.length} requests completed during the ${haltedAt && resumedAt ? resumedAt - haltedAt : 0} ms outage (${downDb.length} needing the database started and ended in it); ${records.length} responses checked for 5xx other than 503 and for Retry-After; ${after.length} successes after the restart; app pid ${appPid} before and ${appPidAfter ?? "gone"} after`,
          violations: v,
        });
      }
    } finally {
      await db.end();
    }

    const tally = (rs: Record_[]) => {
      const out: Record<string, Record<string, number>> = {};
      for (const r of rs) {
        const row = (out[r.route] ??= {});
        const k = r.status === TRANSPORT_ERROR ? "transport error" : String(r.status);
        row[k] = (row[k] ?? 0) + 1;
      }
      return out;
    };
    const loadRecords = records.filter((r) => r.route !== "setup");
    const report: ReliabilityReport = {
      options: { seconds: opts.seconds, clients: opts.clients, outageAt: opts.outageAt, outageSeconds: opts.outageSeconds },
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? "?", memoryGb: Math.round(totalmem() / 2 ** 30), loadBefore, loadAfter: loadavg(), node: process.version },
      outcomes: tally(loadRecords),
      duringOutage: tally(loadRecords.filter((r) => r.end >= haltedAt && r.end <= resumedAt)),
      successesAfterRestart: loadRecords.filter((r) => r.usesDb && r.start > resumedAt && r.status >= 200 && r.status < 300).length,
      requests: loadRecords.length,
      invariants,
      faults: { databaseRestarts: resumedAt ? 1 : 0, outageMs: resumedAt - haltedAt, recoveryMs, appPid, appPidAfter, appRestarts: 0 },
      violations: invariants.reduce((n, i) => n + i.violations.length, 0),
    };
    return report;
  } finally {
    agent.destroy();
    await app?.stop();
    await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
    await oidc?.close();
    await pgServer?.stop();
    await s3?.close();
  }
}

// --- the command --------------------------------------------------------------------------------

export function formatReport(r: ReliabilityReport): string {
  const lines: string[] = [];
  lines.push(`reliability run: ${r.options.clients} clients, ${r.options.seconds} s, database down at ${r.options.outageAt} s for ${r.options.outageSeconds} s`);
  lines.push(`machine: ${r.machine.cpus} × ${r.machine.model}, ${r.machine.memoryGb} GB, Node ${r.machine.node}; load average ${r.machine.loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${r.machine.loadAfter.map((l) => l.toFixed(2)).join(" ")} after`);
  lines.push("", `requests by route and outcome (${r.requests} in all):`);
  const table = (t: Record<string, Record<string, number>>) => {
    for (const [route, outcomes] of Object.entries(t).sort()) {
      const parts = Object.entries(outcomes)
        .sort()
        .map(([k, n]) => `${k}: ${n}`);
      lines.push(`  ${route.padEnd(30)} ${parts.join(", ")}`);
    }
  };
  table(r.outcomes);
  lines.push("", "completed while the database was down:");
  table(r.duringOutage);
  lines.push(`successes of database-backed requests after the restart: ${r.successesAfterRestart}`);
  lines.push("", "faults survived:");
  lines.push(`  database restarts: ${r.faults.databaseRestarts} (down ${r.faults.outageMs} ms); GET /healthz 200 again ${r.faults.recoveryMs ?? "never"} ms after the restart`);
  lines.push(`  app process: pid ${r.faults.appPid} before, ${r.faults.appPidAfter ?? "gone"} after (${r.faults.appRestarts} restarts)`);
  lines.push("", "invariants:");
  for (const i of r.invariants) {
    lines.push(`  ${i.violations.length === 0 ? "ok  " : "FAIL"} ${i.name}`);
    lines.push(`       checked: ${i.checked}`);
    for (const v of i.violations.slice(0, 20)) lines.push(`       violation: ${v}`);
    if (i.violations.length > 20) lines.push(`       … and ${i.violations.length - 20} more`);
  }
  lines.push("", r.violations === 0 ? "no violations" : `${r.violations} violation(s)`);
  return lines.join("\n");
}

/** The whole of a stored object (the checker's read, on whichever store the run used). */
async function readStored(storage: Storage, ref: string): Promise<Buffer> {
  const stream = await storage.get(ref);
  if (!stream) return Buffer.alloc(0);
  return Buffer.from(await new Response(stream).arrayBuffer());
}
