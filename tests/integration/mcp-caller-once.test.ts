import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { callerFromCredential } from "@/lib/auth/caller";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import { suiteContext } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { teamKeyOf, teamWith } from "../support/teams";

// One MCP tools/call resolves its credential once (lib/mcp/tools/call.ts): the team gate, the
// tool and an idempotency key all use that one caller. Counted with the database's own
// statistics: the scans of api_keys (PGlite's pg_stat_user_tables, flushed on demand).

const t = suiteContext({}, { freshLimiter: true });
let ipN = 0;
const nextIp = () => `198.51.100.${++ipN}`;

/** Scans of api_keys so far (index and sequential), every pending count flushed first. */
async function keyScans(): Promise<number> {
  await t.ctx.db.execute(sql`select pg_stat_force_next_flush()`);
  await t.ctx.db.execute(sql`select pg_stat_clear_snapshot()`);
  const r = await t.ctx.db.execute(
    sql`select coalesce(idx_scan, 0) + coalesce(seq_scan, 0) as n from pg_stat_user_tables where relname = 'api_keys'`,
  );
  const rows = (r as { rows: { n: number | string }[] }).rows;
  return Number(rows[0]?.n);
}

/** The scans of api_keys that `fn` makes. */
async function scansOf(fn: () => Promise<unknown>): Promise<number> {
  const before = await keyScans();
  await fn();
  return (await keyScans()) - before;
}

type Counted = CallResult & { scans: number };

async function toolCall(credential: string, name: string, args: Record<string, unknown>): Promise<Counted> {
  const client = await connectInProcess("modern", { ip: nextIp(), credential });
  try {
    // Connecting sends nothing that reads the credential in the modern era; counted from here.
    let result: CallResult | undefined;
    const scans = await scansOf(async () => {
      result = (await client.callTool({ name, arguments: args })) as CallResult;
    });
    if (!result) throw new Error("no result");
    return { ...result, scans };
  } finally {
    await client.close();
  }
}

describe("an MCP tool call resolves its credential once", () => {
  it("reads api_keys for a person's key, a team key and an idempotent write as one credential lookup does", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    // One lookup of the credential, as every caller resolution makes it (find the key, note its use).
    const lookup = await scansOf(() => callerFromCredential(t.ctx, apiKey, "mcp"));
    expect(lookup).toBeGreaterThan(0);

    const listed = await toolCall(apiKey, "list_drops", {});
    expect(listed.isError, resultText(listed)).toBe(false);
    expect(listed.scans).toBe(lookup);

    // A team key: the team gate and the tool share the one caller.
    const team = await teamWith(t.ctx, ["member"]);
    const teamKey = await teamKeyOf(t.ctx, team.people[0]!, team.slug);
    const teamListed = await toolCall(teamKey, "list_drops", {});
    expect(teamListed.isError, resultText(teamListed)).toBe(false);
    expect(teamListed.scans).toBe(lookup);

    // A write with an idempotency key: the key's owner is the same caller.
    const deployed = await toolCall(apiKey, "deploy_html", {
      html: "<!doctype html><title>once</title><p>once</p>",
      idempotency_key: "caller-once-1",
    });
    expect(deployed.isError, resultText(deployed)).toBe(false);
    expect(deployed.scans).toBe(lookup);
  });

  it("refuses an unknown key after one lookup, with the same auth_required answer", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const unknown = `${apiKey.slice(0, -4)}${apiKey.slice(-4) === "aaaa" ? "bbbb" : "aaaa"}`;
    const refused = await toolCall(unknown, "list_drops", {});
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain("Error (auth_required)");
    // Found nowhere: the key is read once (no use to note), and the error's advice reuses that answer.
    expect(refused.scans).toBe(1);
  });
});
