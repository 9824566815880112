// Round 4's durable writes under the outage: the drops' view counts, the operators' actions and
// their audit entries, abuse reports, and a team's role changes with its audit log. The setup
// (through the app, and one database update that makes an operator), the clients' actions, and
// the checks (invariants 10–13 of docs/reliability.md).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { jsonOf, pick, TRANSPORT_ERROR, type Send } from "./http";
import type { Named } from "./named";
import type { Account, Stack } from "./stack";

const ROLES = ["viewer", "member", "admin"] as const;
type Role = (typeof ROLES)[number];

/** What the clients' durable writes saw. */
export interface DurableSeen {
  /** Every POST /admin/blocks: its range (unique per request) and the answer's status. */
  blocks: Array<{ cidr: string; status: number }>;
  /** Every POST /reports: the answer's status and, for a 202, the report's id. */
  reports: Array<{ status: number; id?: string }>;
  /** Every PATCH of a member's role: the member and the answer's status. */
  roleChanges: Array<{ account: string; status: number }>;
}

export interface DurableWorld {
  operator: Account;
  team: { slug: string; owner: Account; members: Array<{ account: Account; initial: Role }> };
  seen: DurableSeen;
}

const auth = (a: Account) => ({ authorization: `Bearer ${a.apiKey}`, "content-type": "application/json" });

/**
 * One of the team accounts is made an operator (the database update `npm run admin -- grant-admin`
 * makes); another creates a team through the app and invites the other two, who join as members.
 */
export async function setUpDurable(stack: Stack, send: Send): Promise<DurableWorld> {
  const [owner, a, b] = stack.accounts.teams as [Account, Account, Account];
  const operator = b;
  const db = new pg.Client({ connectionString: stack.pg.url });
  await db.connect();
  try {
    await db.query("update accounts set admin_granted_at = now() where id = $1", [operator.id]);
  } finally {
    await db.end();
  }
  const created = await send("setup", true, stack.appHost, "/teams", {
    method: "POST",
    headers: auth(owner),
    body: JSON.stringify({ name: "Reliability", slug: `rel-${randomBytes(3).toString("hex")}` }),
  });
  if (created.status !== 201)
    throw new Error(`setup: POST /teams answered ${created.status}: ${created.body.toString()}`);
  const slug = jsonOf<{ slug: string }>(created).slug;
  const members: DurableWorld["team"]["members"] = [];
  for (const account of [a, b]) {
    const invite = await send("setup", true, stack.appHost, `/teams/${slug}/invites`, {
      method: "POST",
      headers: auth(owner),
      body: JSON.stringify({ role: "member" }),
    });
    if (invite.status !== 201) throw new Error(`setup: invite answered ${invite.status}: ${invite.body.toString()}`);
    const joined = await send("setup", true, stack.appHost, "/teams/join", {
      method: "POST",
      headers: auth(account),
      body: JSON.stringify({ code: jsonOf<{ code: string }>(invite).code }),
    });
    if (joined.status !== 200) throw new Error(`setup: join answered ${joined.status}: ${joined.body.toString()}`);
    members.push({ account, initial: "member" });
  }
  return { operator, team: { slug, owner, members }, seen: { blocks: [], reports: [], roleChanges: [] } };
}

/** The clients' durable writes: an operator's block, an abuse report, a change of a member's role. */
export function durableActions(stack: Stack, send: Send, d: DurableWorld, named: Named[]) {
  let blockSeq = 0;
  return {
    block: async () => {
      // A range of its own per request (198.18.0.0/15, the benchmarking range: no client's address).
      const n = blockSeq++;
      const cidr = `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}/32`;
      const r = await send("POST /admin/blocks", true, stack.appHost, "/admin/blocks", {
        method: "POST",
        headers: auth(d.operator),
        body: JSON.stringify({ cidr, reason: "reliability run" }),
      });
      d.seen.blocks.push({ cidr, status: r.status });
    },
    report: async () => {
      const n = pick(named.filter((x) => x.stable && x.slug));
      if (!n?.slug) return;
      const r = await send("POST /reports", true, stack.appHost, "/reports", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `http://${stack.dropHost(n.slug)}/`, reason: "spam", details: "reliability run" }),
      });
      d.seen.reports.push({ status: r.status, ...(r.status === 202 ? { id: jsonOf<{ id: string }>(r).id } : {}) });
    },
    roleChange: async () => {
      const m = pick(d.team.members);
      const r = await send(
        "PATCH /teams/{team}/members/{account}",
        true,
        stack.appHost,
        `/teams/${d.team.slug}/members/${m.account.id}`,
        {
          method: "PATCH",
          headers: auth(d.team.owner),
          body: JSON.stringify({ role: pick(ROLES) }),
        },
      );
      d.seen.roleChanges.push({ account: m.account.id, status: r.status });
    },
  };
}

type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

interface Invariant {
  name: string;
  checked: string;
  violations: string[];
}

/** 10. Every page view a client was answered is counted once: none lost in the outage, none counted twice. */
export async function viewsCounted(
  q: Query,
  reads: Array<{ named: Named; path: string; status: number }>,
): Promise<Invariant> {
  const expected = new Map<string, number>();
  for (const r of reads)
    if (r.path === "index.html" && r.status === 200 && r.named.slug)
      expected.set(r.named.slug, (expected.get(r.named.slug) ?? 0) + 1);
  const slugs = [...expected.keys()];
  const counted = async () =>
    new Map(
      (
        await q<{ slug: string; views: string }>(
          "select d.slug, coalesce(sum(s.views), 0) as views from drops d left join drop_stats s on s.drop_id = d.id where d.slug = any($1) group by d.slug",
          [slugs],
        )
      ).map((r) => [r.slug, Number(r.views)]),
    );
  // A count reaches the database at the drop's next flush (at most 10 s after its first view of
  // the tally; one that failed in the outage is kept for the next): wait for them, then compare.
  const deadline = Date.now() + 25_000;
  let got = await counted();
  while (Date.now() < deadline && slugs.some((s) => (got.get(s) ?? 0) < expected.get(s)!)) {
    await new Promise((r) => setTimeout(r, 500));
    got = await counted();
  }
  const v: string[] = [];
  for (const s of slugs) {
    const want = expected.get(s)!;
    const have = got.get(s) ?? 0;
    if (have < want) v.push(`drop ${s}: ${want} views answered, ${have} counted (${want - have} lost)`);
    if (have > want) v.push(`drop ${s}: ${want} views answered, ${have} counted (${have - want} counted twice)`);
  }
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  return {
    name: "every view answered is counted once (none lost in the outage, none twice)",
    checked: `${total} views of ${slugs.length} drops`,
    violations: v,
  };
}

/** 11. An operator's action that answered success has its audit entry; one that failed has neither entry nor effect. */
export async function operatorAudit(q: Query, seen: DurableSeen): Promise<Invariant> {
  const audited = new Set(
    (await q<{ target: string }>("select target from audit_log where action = 'block.added'")).map((r) => r.target),
  );
  const blocked = new Set((await q<{ cidr: string }>("select cidr from blocks")).map((r) => r.cidr));
  const v: string[] = [];
  let ok = 0;
  for (const b of seen.blocks) {
    const entry = audited.has(`block:${b.cidr}`);
    const row = blocked.has(b.cidr);
    if (b.status === 201) {
      ok++;
      if (!entry) v.push(`block ${b.cidr} answered 201 without its audit entry`);
      if (!row) v.push(`block ${b.cidr} answered 201 but is not stored`);
    } else if (b.status !== TRANSPORT_ERROR && (entry || row))
      v.push(
        `block ${b.cidr} answered ${b.status} but left ${entry ? "an audit entry" : ""}${entry && row ? " and " : ""}${row ? "a block" : ""}`,
      );
    if (entry !== row)
      v.push(`block ${b.cidr}: ${entry ? "an audit entry without its block" : "a block without its audit entry"}`);
  }
  return {
    name: "every operator action that succeeded is audited, and none that failed",
    checked: `${seen.blocks.length} blocks added (${ok} answered 201)`,
    violations: v,
  };
}

/** 12. Every report answered 202 is stored. */
export async function reportsStored(q: Query, seen: DurableSeen): Promise<Invariant> {
  const ids = seen.reports.flatMap((r) => (r.id ? [r.id] : []));
  const stored = new Set(
    (await q<{ id: string }>("select id from reports where id = any($1)", [ids])).map((r) => r.id),
  );
  const v = ids.filter((id) => !stored.has(id)).map((id) => `report ${id} answered 202 but is not stored`);
  return {
    name: "every report answered 202 is stored",
    checked: `${seen.reports.length} reports (${ids.length} answered 202)`,
    violations: v,
  };
}

/**
 * 13. A team change and its audit entry commit together: each member's role changes, read from
 * the audit log as transitions (from → to), lead from its first role to the role it holds, and
 * there is an entry for every change that answered 200 and none beyond the ones in doubt.
 */
export async function teamAudit(q: Query, d: DurableWorld): Promise<Invariant> {
  const [team] = await q<{ id: string }>("select id from teams where slug = $1", [d.team.slug]);
  const v: string[] = [];
  if (!team)
    return {
      name: "a team change and its audit entry commit together",
      checked: "no team",
      violations: [`team ${d.team.slug} is gone`],
    };
  const entries = await q<{ target: string; data: { from: Role; to: Role } }>(
    "select target, data from team_audit where team_id = $1 and action = 'member.role_changed'",
    [team.id],
  );
  const roles = new Map(
    (
      await q<{ account_id: string; role: Role }>("select account_id, role from team_members where team_id = $1", [
        team.id,
      ])
    ).map((r) => [r.account_id, r.role]),
  );
  for (const m of d.team.members) {
    const id = m.account.id;
    const mine = entries.filter((e) => e.target === `account:${id}`);
    const answers = d.seen.roleChanges.filter((c) => c.account === id);
    const succeeded = answers.filter((c) => c.status === 200).length;
    const inDoubt = answers.filter((c) => c.status === 503 || c.status === TRANSPORT_ERROR).length;
    if (mine.length < succeeded)
      v.push(`member ${id}: ${succeeded} changes answered 200, ${mine.length} audit entries`);
    if (mine.length > succeeded + inDoubt)
      v.push(
        `member ${id}: ${mine.length} audit entries for ${succeeded} changes answered 200 and ${inDoubt} in doubt`,
      );
    // As a path through the roles: every role is left as often as it is entered, but the first
    // (left once more) and the one held now (entered once more).
    const balance = new Map<string, number>();
    const add = (role: string, n: number) => balance.set(role, (balance.get(role) ?? 0) + n);
    for (const e of mine) {
      add(e.data.from, 1);
      add(e.data.to, -1);
    }
    const now = roles.get(id);
    if (!now) {
      v.push(`member ${id} is no longer in the team`);
      continue;
    }
    add(m.initial, -1);
    add(now, 1);
    const off = [...balance].filter(([, n]) => n !== 0);
    if (off.length > 0)
      v.push(
        `member ${id}: its audit entries do not lead from ${m.initial} to ${now} (${off.map(([r, n]) => `${r} ${n > 0 ? "+" : ""}${n}`).join(", ")})`,
      );
  }
  return {
    name: "a team change and its audit entry commit together",
    checked: `${d.seen.roleChanges.length} role changes of ${d.team.members.length} members, ${entries.length} audit entries`,
    violations: v,
  };
}
