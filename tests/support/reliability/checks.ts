// The checks: the invariants of docs/reliability.md, each a function over the end state (the
// database, the store) and what the clients saw. Each returns what it looked at and every
// violation it found.
import pg from "pg";
import { limits } from "../../../lib/plans";
import type { Storage } from "../../../lib/storage/types";
import { operatorAudit, reportsStored, teamAudit, viewsCounted, type DurableWorld } from "./durable";
import { sha256, TRANSPORT_ERROR, type RequestRecord } from "./http";
import type { Seen } from "./mix";
import { versionedBody, versionsIn, type Retries } from "./named";
import type { OutageTimes } from "./outage";
import type { Accounts } from "./stack";
import type { World } from "./world";

export interface Invariant {
  name: string;
  /** What was looked at, e.g. "412 drops". */
  checked: string;
  violations: string[];
}

/** Everything the checks read. */
export interface RunState {
  databaseUrl: string;
  storage: Storage;
  accounts: Accounts;
  world: World;
  seen: Seen;
  durable: DurableWorld;
  retries: Retries;
  records: RequestRecord[];
  times: OutageTimes;
  app: { pidBefore: number | undefined; pidAfter: number | undefined };
}

type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

export async function checkInvariants(run: RunState): Promise<Invariant[]> {
  const db = new pg.Client({ connectionString: run.databaseUrl });
  await db.connect();
  const q: Query = async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[];
  try {
    return [
      await filesPerDrop(q, run),
      await oneDropPerName(q),
      await capsHeld(q, run),
      await bytesMatchRows(q, run.storage),
      noMixedVersions(run),
      idempotentRetries(run.retries),
      await outbox(q, run.world),
      outageBehaviour(run),
      ...(run.times.bucket ? [bucketOutageBehaviour(run, run.times.bucket)] : []),
      await viewsCounted(q, run.seen.reads),
      await operatorAudit(q, run.durable.seen),
      await reportsStored(q, run.durable.seen),
      await teamAudit(q, run.durable),
    ];
  } finally {
    await db.end();
  }
}

/** 1. Files per drop ≤ the cap, and file_count = file rows, per version. */
async function filesPerDrop(q: Query, run: RunState): Promise<Invariant> {
  const { filesCap, bigSlug } = run.world;
  // The live version's rows: every version keeps all its own file rows.
  const rows = await q<{ id: string; slug: string; file_count: number; n: string }>(
    "select d.id, d.slug, d.file_count, (select count(*) from files f where f.drop_id = d.id and f.version = d.live_version) as n from drops d",
  );
  const v: string[] = [];
  for (const r of rows) {
    if (Number(r.n) > filesCap) v.push(`drop ${r.slug} has ${r.n} files (cap ${filesCap})`);
    if (Number(r.n) !== r.file_count)
      v.push(`drop ${r.slug}: file_count ${r.file_count} but ${r.n} file rows in its live version`);
  }
  // Every retained version has exactly the file rows it says it has.
  const versions = await q<{ slug: string; version: number; file_count: number; n: string }>(
    "select d.slug, v.version, v.file_count, (select count(*) from files f where f.drop_id = v.drop_id and f.version = v.version) as n from drop_versions v join drops d on d.id = v.drop_id",
  );
  for (const r of versions)
    if (Number(r.n) !== r.file_count)
      v.push(`drop ${r.slug} version ${r.version}: file_count ${r.file_count} but ${r.n} file rows`);
  const big = rows.find((r) => r.slug === bigSlug);
  return {
    name: "files per drop ≤ 10,000 (and file_count = file rows, per version)",
    checked: `${rows.length} drops, ${versions.length} versions; the drop appended towards the cap ends with ${big?.n ?? "?"} files`,
    violations: v,
  };
}

/** 2. No (owner, name) has more than one drop. */
async function oneDropPerName(q: Query): Promise<Invariant> {
  const dup = await q<{ owner_id: string; name: string; n: string }>(
    "select owner_id, name, count(*) as n from drops where name is not null group by owner_id, name having count(*) > 1",
  );
  const total = await q<{ n: string }>("select count(*) as n from drops where name is not null");
  return {
    name: "one drop per account and name",
    checked: `${total[0]?.n ?? 0} named drops`,
    violations: dup.map((d) => `${d.owner_id}/${d.name}: ${d.n} drops`),
  };
}

/** 3. Caps: keys, drops per account, vanity, one claim per drop. */
async function capsHeld(q: Query, run: RunState): Promise<Invariant> {
  const { keysAccountId, free } = run.accounts;
  const { vanityWins, claims } = run.seen;
  const v: string[] = [];
  const keys = await q<{ account_id: string; n: string }>(
    "select account_id, count(*) as n from api_keys where revoked_at is null group by account_id",
  );
  const plans = new Map(
    (
      await q<{ id: string; plan: keyof typeof limits; vanity_sub: string | null }>(
        "select id, plan, vanity_sub from accounts",
      )
    ).map((a) => [a.id, a]),
  );
  for (const k of keys) {
    const max = limits[plans.get(k.account_id)?.plan ?? "free"].maxKeys;
    if (Number(k.n) > max) v.push(`account ${k.account_id} has ${k.n} live keys (cap ${max})`);
  }
  const keysLive = keys.find((k) => k.account_id === keysAccountId)?.n ?? "0";
  const owned = await q<{ owner_id: string; n: string }>(
    "select owner_id, count(*) as n from drops where owner_id is not null group by owner_id",
  );
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
    if (plans.get(w.account)?.vanity_sub !== w.sub)
      v.push(
        `vanity ${w.sub} answered 201 for ${w.account}, whose sub is ${plans.get(w.account)?.vanity_sub ?? "none"}`,
      );
  }
  for (const [sub, n] of bySub) if (n > 1) v.push(`vanity ${sub} answered 201 ${n} times`);
  for (const [acc, n] of byAccount) if (n > 1) v.push(`account ${acc} won ${n} vanity claims`);
  for (const [slug, winners] of claims) if (winners.length > 1) v.push(`drop ${slug} claimed ${winners.length} times`);
  for (const [slug, winners] of claims) {
    const [row] = await q<{ owner_id: string | null }>("select owner_id from drops where slug = $1", [slug]);
    if (row && row.owner_id !== winners[0])
      v.push(`drop ${slug} claimed by ${winners[0]} but owned by ${row.owner_id}`);
  }
  return {
    name: "every cap held (keys, drops per account, vanity, one claim per drop)",
    checked: `${keys.length} accounts' keys (the minting account ends with ${keysLive} of ${limits.free.maxKeys}); ${owned.length} accounts' drops (the free account ends with ${freeOwned} of ${limits.free.maxDrops}); ${vanityWins.length} vanity wins; ${claims.size} claimed drops`,
    violations: v,
  };
}

/** 4. No bytes in storage without a row, no row without bytes (each re-read and re-hashed). */
async function bytesMatchRows(q: Query, storage: Storage): Promise<Invariant> {
  const v: string[] = [];
  // A store that cannot list is a finding, not a crash.
  const stored = new Set(
    await storage
      .list("")
      .catch(
        (err: unknown) => (
          v.push(`the store could not list its objects (${err instanceof Error ? err.message : String(err)})`),
          [] as string[]
        ),
      ),
  );
  const contents = await q<{ scope: string; sha256: string; size: string; storage_ref: string | null; pins: number }>(
    "select scope, sha256, size, storage_ref, pins from contents",
  );
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
      v.push(
        `content ${c.scope}/${c.sha256}: its stored bytes could not be read (${err instanceof Error ? err.message : String(err)})`,
      );
      continue;
    }
    if (bytes.byteLength !== Number(c.size) || sha256(bytes) !== c.sha256)
      v.push(`content ${c.scope}/${c.sha256}: stored bytes differ from the row`);
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
  return {
    name: "no bytes in storage without a row, no row without bytes",
    checked: `${stored.size} stored objects, ${contents.length} content rows (each re-hashed), ${fileRows[0]?.n ?? 0} file rows; ${unmarked.length} rows of cut-off requests marked as holding no bytes (${unmarkedBytes} with bytes left at their key for a later purge)`,
    violations: v,
  };
}

/** The whole of a stored object (the checker's read, on whichever store the run used). */
async function readStored(storage: Storage, ref: string): Promise<Buffer> {
  const stream = await storage.get(ref);
  if (!stream) return Buffer.alloc(0);
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** 5. Every 200 of a stable named drop's file is exactly one deployed version's file. */
function noMixedVersions({ seen, world }: RunState): Invariant {
  const v: string[] = [];
  let checked = 0;
  for (const r of seen.reads) {
    if (r.status !== 200) continue;
    checked++;
    const versions = versionsIn(r.body);
    const where = `${r.named.owner.id}/${r.named.name}/${r.path}`;
    if (versions.size !== 1) {
      v.push(`${where}: one response carried ${versions.size} versions`);
      continue;
    }
    const [version] = [...versions] as [string];
    if (!r.named.attempted.has(version)) v.push(`${where}: version ${version} was never deployed`);
    if (r.body.toString("utf8") !== versionedBody(version, r.path))
      v.push(`${where}: body is not exactly version ${version}'s file`);
    if (r.etag !== `"${sha256(r.body)}"`) v.push(`${where}: ETag ${r.etag ?? "(none)"} is not the body's SHA-256`);
  }
  const notOk = seen.reads.filter((r) => r.status !== 200 && r.status !== 503);
  for (const r of notOk.slice(0, 20))
    v.push(`${r.named.name}/${r.path}: read of a stable named drop answered ${r.status}`);
  const { pageLoads } = seen;
  return {
    name: "no response mixed two versions of a named drop",
    checked: `${checked} file responses of ${world.named.filter((n) => n.stable).length} named drops (${world.named.reduce((n, x) => n + x.attempted.size, 0)} versions deployed); ${pageLoads.straddled} of ${pageLoads.total} two-request page loads saw a redeploy between their requests (allowed: each response is one version)`,
    violations: v,
  };
}

/** An idempotent retry replays the first answer. */
function idempotentRetries(retries: Retries): Invariant {
  return {
    name: "an idempotent retry (redeploys, rollbacks) replays the first answer and writes nothing",
    checked: `${retries.total} answered writes retried with their key (${retries.replayed} replayed)`,
    violations: retries.violations,
  };
}

/**
 * 6. The outbox: every committed change has exactly one event, none without its change, and
 * every event owed to a webhook is delivered (signature verified) or still being retried.
 */
async function outbox(q: Query, world: World): Promise<Invariant> {
  const v: string[] = [];
  const writeType: Record<string, string> = {
    deploy: "drop.deployed",
    replace: "drop.replaced",
    append: "drop.appended",
  };
  type Ev = { id: string; account_id: string; type: string; slug: string; version: number | null };
  const events = await q<Ev>(
    "select id, account_id, type, data->>'slug' as slug, (data->>'version')::int as version from events",
  );
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
    if (n !== 1 && !(n === 0 && claimed && (claimed.version ?? 0) >= r.version))
      v.push(`drop ${r.slug} version ${r.version} (${r.kind}) has ${n} events`);
  }
  const live = new Set((await q<{ slug: string }>("select slug from drops")).map((r) => r.slug));
  const kept = new Set(versions.map((r) => `${r.slug}/${r.version}`));
  for (const [slug, list] of bySlug) {
    const ends = list.filter((e) => e.type === "drop.deleted" || e.type === "drop.expired").length;
    if (live.has(slug) && ends > 0) v.push(`drop ${slug} exists but has ${ends} delete events`);
    if (!live.has(slug) && ends !== 1) v.push(`drop ${slug} is gone with ${ends} delete events`);
    if (!live.has(slug)) continue;
    for (const e of list) {
      if (Object.values(writeType).includes(e.type) && !kept.has(`${slug}/${e.version}`))
        v.push(`event ${e.id} (${e.type}) names version ${e.version} of ${slug}, which does not exist`);
      if (e.type === "drop.rolled_back" && !kept.has(`${slug}/${e.version}`))
        v.push(`event ${e.id} rolls ${slug} back to version ${e.version}, which does not exist`);
    }
  }
  // Deliveries: let the app's worker finish what is due (a failed attempt retries after 30 s).
  const owedNow = async () =>
    Number((await q<{ n: string }>("select count(*) as n from webhook_deliveries where state = 'pending'"))[0]?.n ?? 0);
  for (let i = 0; i < 600 && (await owedNow()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
  const states = await q<{ state: string; n: string }>(
    "select state, count(*) as n from webhook_deliveries group by state",
  );
  const count = (st: string) => Number(states.find((x) => x.state === st)?.n ?? 0);
  if (count("failed") > 0) v.push(`${count("failed")} deliveries failed for good`);
  const hooked = await q<{ event_id: string; webhook_id: string }>(
    "select e.id as event_id, w.id as webhook_id from events e join webhooks w on w.account_id = e.account_id left join webhook_deliveries d on d.event_id = e.id and d.webhook_id = w.id where d.event_id is null and e.created_at >= w.created_at",
  );
  for (const h of hooked.slice(0, 10)) v.push(`event ${h.event_id} has no delivery for webhook ${h.webhook_id}`);
  const delivered = await q<{ event_id: string }>("select event_id from webhook_deliveries where state = 'delivered'");
  const { hooks } = world;
  for (const d of delivered)
    if (!hooks.received.has(d.event_id))
      v.push(`event ${d.event_id} is marked delivered but the receiver never accepted it`);
  if (hooks.unverified > 0) v.push(`${hooks.unverified} deliveries failed signature verification`);
  return {
    name: "every committed change has exactly one event; every event is delivered or still retrying",
    checked: `${events.length} events against ${versions.length} versions and ${live.size} drops; deliveries ${count("delivered")} delivered, ${count("pending")} still retrying, ${count("failed")} failed; the receiver verified ${hooks.received.size} distinct events`,
    violations: v,
  };
}

/** 7. Behaviour while the database (and with --s3 the bucket) was down, and recovery. */
function outageBehaviour({ records, times, app }: RunState): Invariant {
  const { haltedAt, resumingAt, resumedAt, recoveryMs } = times;
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
  if (app.pidAfter !== app.pidBefore)
    v.push(`the app process did not survive (pid ${app.pidBefore} → ${app.pidAfter ?? "gone"})`);
  return {
    name: "503 with Retry-After while the database was down; recovery without restarting the app",
    checked: `${down.length} requests completed during the ${haltedAt && resumedAt ? resumedAt - haltedAt : 0} ms outage (${downDb.length} needing the database started and ended in it); ${records.length} responses checked for 5xx other than 503 and for Retry-After; ${after.length} successes after the restart; app pid ${app.pidBefore} before and ${app.pidAfter ?? "gone"} after`,
    violations: v,
  };
}

/**
 * 8 (with --s3). The bucket down alone: what needs it answers 503 with Retry-After (the 5xx and
 * Retry-After checks above cover every response), requests keep completing, and what needs the
 * store succeeds again after it.
 */
function bucketOutageBehaviour({ records }: RunState, bucket: NonNullable<OutageTimes["bucket"]>): Invariant {
  const v: string[] = [];
  const inside = records.filter((r) => r.route !== "setup" && r.start >= bucket.haltedAt && r.end <= bucket.resumingAt);
  const refused = inside.filter((r) => r.status === 503);
  if (refused.length === 0) v.push("no 503 was seen while the bucket was down");
  const needsStore = (r: RequestRecord) => r.route === "GET drop file" || r.route.startsWith("POST /deploy");
  const after = records.filter((r) => needsStore(r) && r.start > bucket.resumedAt && r.status === 200);
  if (after.length === 0) v.push("no deploy or read of a drop succeeded after the bucket came back");
  const slowest = Math.max(0, ...inside.map((r) => r.end - r.start));
  const firstAfter = after.length ? Math.min(...after.map((r) => r.end - bucket.resumedAt)) : null;
  return {
    name: "503 with Retry-After while only the S3 bucket was down; deploys and reads succeed after it",
    checked: `${inside.length} requests started and ended in the ${bucket.resumingAt - bucket.haltedAt} ms bucket outage (${refused.length} answered 503, the slowest in ${slowest} ms); ${after.length} deploys and reads succeeded after it, the first ${firstAfter ?? "-"} ms after the bucket answered again`,
    violations: v,
  };
}
