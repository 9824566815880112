import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { countDrops, findDropBySlug } from "@/lib/db/queries";
import { deployGrants, dropVersions, idempotencyKeys, uploadGrants, webhooks } from "@/lib/db/schema";
import { tools } from "@/lib/mcp/tools";
import { TOOL_NAMES } from "../support/tools";
import { suiteContext } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { CLIENT_FLAVOURS, connectAgent, resultText, type Agent, type CallResult } from "../support/mcp";

// idempotency_key on every MCP tool that writes, through both official clients: ten calls with
// one key and the same arguments write once and all return the first result; the key with other
// arguments is a conflict; an out-of-range key is an isError result with code invalid_request
// (never a JSON-RPC -32602), and writes nothing. Keys belong to the account, or to the client
// address when anonymous.

// Webhooks may point at loopback here (nothing is delivered in this suite).
const t = suiteContext({ WEBHOOKS_ALLOW_PRIVATE: "1" }, { freshLimiter: true });
let ipN = 0;
const nextIp = () => `203.0.113.${++ipN}`;
const errorCode = (r: CallResult) => (r._meta?.["dev.dropsite/error"] as { code: string } | undefined)?.code;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * The tools that write (readOnlyHint false in the one tool list), each with idempotency_key; the
 * device login tools and report_abuse are left out on purpose (docs/decisions.md).
 */
const WRITE_TOOLS = tools
  .filter((x) => !x.annotations.readOnlyHint && !x.name.startsWith("device_") && x.name !== "report_abuse")
  .map((x) => x.name)
  .sort();

/** Ten sequential calls (an agent retrying after timeouts): every one succeeds with the first result. */
async function tenTimes(agent: Agent, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const first = await agent.call(name, args);
  expect(first.isError, resultText(first)).toBe(false);
  for (let i = 1; i < 10; i++) {
    const again = await agent.call(name, args);
    expect(again.isError, resultText(again)).toBe(false);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(resultText(again)).toBe(resultText(first));
  }
  return first;
}

async function expectConflict(agent: Agent, name: string, args: Record<string, unknown>) {
  const r = await agent.call(name, args);
  expect(r.isError).toBe(true);
  expect(errorCode(r)).toBe("conflict");
  expect(resultText(r)).toMatch(/^Error \(conflict\): This idempotency_key was used for a different call/m);
  expect(resultText(r)).toMatch(/^Hint: Use a new idempotency_key/m);
}

async function pro(flavour: (typeof CLIENT_FLAVOURS)[number]) {
  const { apiKey, account } = await accountWithKey(t.ctx, "pro");
  return { agent: await connectAgent(flavour, { ip: nextIp(), credential: apiKey }), account };
}

const versionsOf = async (slug: string) => {
  const drop = await findDropBySlug(t.ctx.db, slug);
  const [row] = await t.ctx.db.select({ n: count() }).from(dropVersions).where(eq(dropVersions.dropId, drop!.id));
  return { drop: drop!, versions: row!.n };
};

describe("the write tools", () => {
  it("are exactly the tools that publish idempotency_key, with its bounds", async () => {
    const agent = await connectAgent("client-2.x", { ip: nextIp() });
    const tools = (await agent.listTools()) as {
      name: string;
      inputSchema: { properties?: Record<string, { minLength?: number; maxLength?: number }> };
    }[];
    expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
    expect(
      tools
        .filter((x) => x.inputSchema.properties?.idempotency_key)
        .map((x) => x.name)
        .sort(),
    ).toEqual(WRITE_TOOLS);
    for (const x of tools.filter((y) => y.inputSchema.properties?.idempotency_key))
      expect(x.inputSchema.properties!.idempotency_key, x.name).toMatchObject({ minLength: 1, maxLength: 255 });
  });
});

describe.each(CLIENT_FLAVOURS)("idempotency_key through the %s client", (flavour) => {
  it("deploy_html and deploy_files: ten anonymous calls with one key make one drop; other arguments conflict", async () => {
    const agent = await connectAgent(flavour, { ip: nextIp() });
    for (const [name, args, other] of [
      ["deploy_html", { html: `<p>${flavour} once</p>` }, { html: "<p>another</p>" }],
      ["deploy_files", { files: { "index.html": `${flavour} files` } }, { files: { "index.html": "another" } }],
    ] as const) {
      const before = await countDrops(t.ctx.db);
      const key = `${flavour}-${name}`;
      const first = await tenTimes(agent, name, { ...args, idempotency_key: key });
      expect(first.structuredContent).toMatchObject({ claim_token: expect.any(String) });
      expect(await countDrops(t.ctx.db)).toBe(before + 1);
      await expectConflict(agent, name, { ...other, idempotency_key: key });
      expect(await countDrops(t.ctx.db)).toBe(before + 1);
    }
    // The same arguments in another key order are the same call.
    const key = `${flavour}-order`;
    const a = await agent.call("deploy_html", { html: "<p>order</p>", ttl: 3600, idempotency_key: key });
    const b = await agent.call("deploy_html", { idempotency_key: key, ttl: 3600, html: "<p>order</p>" });
    expect(b.structuredContent).toEqual(a.structuredContent);
    await agent.close();
  });

  it("keys belong to the client address when anonymous, and to the account with a key", async () => {
    const key = `${flavour}-scoped`;
    const here = await connectAgent(flavour, { ip: nextIp() });
    const there = await connectAgent(flavour, { ip: nextIp() });
    const a = await here.call("deploy_html", { html: "<p>scoped</p>", idempotency_key: key });
    const b = await there.call("deploy_html", { html: "<p>scoped</p>", idempotency_key: key });
    expect((b.structuredContent as { slug: string }).slug).not.toBe((a.structuredContent as { slug: string }).slug);
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const one = await connectAgent(flavour, { ip: nextIp(), credential: apiKey });
    const two = await connectAgent(flavour, { ip: nextIp(), credential: apiKey });
    const c = await one.call("deploy_html", { html: "<p>scoped</p>", idempotency_key: key });
    expect((await two.call("deploy_html", { html: "<p>scoped</p>", idempotency_key: key })).structuredContent).toEqual(
      c.structuredContent,
    );
    expect((c.structuredContent as { slug: string }).slug).not.toBe((a.structuredContent as { slug: string }).slug);
  });

  it("parallel calls with one key write once: the others replay or are told the first is in flight", async () => {
    const { agent } = await pro(flavour);
    const before = await countDrops(t.ctx.db);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        agent.call("deploy_named", { name: "parallel", files: { "index.html": "p" }, idempotency_key: "parallel" }),
      ),
    );
    expect(await countDrops(t.ctx.db)).toBe(before + 1);
    const ok = results.filter((r) => !r.isError);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of ok) expect(r.structuredContent).toEqual(ok[0]!.structuredContent);
    for (const r of results.filter((x) => x.isError)) {
      expect(errorCode(r)).toBe("conflict");
      expect(resultText(r)).toMatch(/still in flight[\s\S]*Retry after 1 seconds/);
    }
  });

  it("deploy_named and append_files: ten calls, one version each", async () => {
    const { agent } = await pro(flavour);
    const before = await countDrops(t.ctx.db);
    const d = await tenTimes(agent, "deploy_named", {
      name: "tenfold",
      files: { "index.html": "v1" },
      idempotency_key: "named",
    });
    const slug = (d.structuredContent as { slug: string }).slug;
    expect(await countDrops(t.ctx.db)).toBe(before + 1);
    await tenTimes(agent, "deploy_named", {
      name: "tenfold",
      files: { "index.html": "v2" },
      idempotency_key: "named-2",
    });
    expect((await versionsOf(slug)).versions).toBe(2);
    await expectConflict(agent, "deploy_named", {
      name: "tenfold",
      files: { "index.html": "v3" },
      idempotency_key: "named",
    });

    const a = await tenTimes(agent, "append_files", { slug, files: { "more.html": "m" }, idempotency_key: "append" });
    expect(a.structuredContent).toMatchObject({ version: 3, total_files: 2 });
    expect((await versionsOf(slug)).versions).toBe(3);
    await expectConflict(agent, "append_files", { slug, files: { "other.html": "o" }, idempotency_key: "append" });
    expect((await versionsOf(slug)).versions).toBe(3);
  });

  it("rollback_drop: a replay moves nothing", async () => {
    const { agent } = await pro(flavour);
    const slug = (
      (await agent.call("deploy_named", { name: "rb", files: { "index.html": "v1" } })).structuredContent as {
        slug: string;
      }
    ).slug;
    await agent.call("deploy_named", { name: "rb", files: { "index.html": "v2" } });
    expect(
      (await tenTimes(agent, "rollback_drop", { slug, version: 1, idempotency_key: "rb" })).structuredContent,
    ).toMatchObject({ live_version: 1 });
    await agent.call("rollback_drop", { slug, version: 2 });
    expect(
      (await agent.call("rollback_drop", { slug, version: 1, idempotency_key: "rb" })).structuredContent,
    ).toMatchObject({ live_version: 1 });
    expect((await versionsOf(slug)).drop.liveVersion).toBe(2);
    await expectConflict(agent, "rollback_drop", { slug, version: 2, idempotency_key: "rb" });
  });

  it("delete_drop: the retries replay the deletion instead of answering not_found", async () => {
    const { agent } = await pro(flavour);
    const slug = ((await agent.call("deploy_html", { html: "<p>doomed</p>" })).structuredContent as { slug: string })
      .slug;
    const before = await countDrops(t.ctx.db);
    expect((await tenTimes(agent, "delete_drop", { slug, idempotency_key: "del" })).structuredContent).toEqual({
      deleted: slug,
    });
    expect(await countDrops(t.ctx.db)).toBe(before - 1);
    expect(errorCode(await agent.call("delete_drop", { slug }))).toBe("not_found");
    await expectConflict(agent, "delete_drop", { slug: "someother", idempotency_key: "del" });
  });

  it("set_access: ten calls sign visitors out once; another password with the key conflicts", async () => {
    const { agent } = await pro(flavour);
    const slug = ((await agent.call("deploy_html", { html: "<p>guarded</p>" })).structuredContent as { slug: string })
      .slug;
    const policy = async () => (await findDropBySlug(t.ctx.db, slug))!.accessPolicyVersion;
    const start = await policy();
    expect(
      (
        await tenTimes(agent, "set_access", {
          slug,
          mode: "password",
          password: "correct horse",
          idempotency_key: "lock",
        })
      ).structuredContent,
    ).toEqual({ slug, mode: "password" });
    expect(await policy()).toBe(start + 1);
    await expectConflict(agent, "set_access", {
      slug,
      mode: "password",
      password: "another horse",
      idempotency_key: "lock",
    });
    expect(await policy()).toBe(start + 1);
  });

  it("preflight_files, upload_content and deploy_directory: one grant, one upload", async () => {
    const agent = await connectAgent(flavour, { ip: nextIp() });
    const grants = async () => (await t.ctx.db.select({ n: count() }).from(uploadGrants))[0]!.n;
    const before = await grants();
    const files = { "index.html": { sha256: sha(`${flavour} pre`), size: Buffer.byteLength(`${flavour} pre`) } };
    const p = await tenTimes(agent, "preflight_files", { files, idempotency_key: "pre" });
    expect(await grants()).toBe(before + 1);
    const token = (p.structuredContent as { upload_token: string }).upload_token;
    await tenTimes(agent, "upload_content", {
      sha256: sha(`${flavour} pre`),
      content: `${flavour} pre`,
      upload_token: token,
      idempotency_key: "up",
    });
    await expectConflict(agent, "upload_content", {
      sha256: sha("x"),
      content: "x",
      upload_token: token,
      idempotency_key: "up",
    });
    await expectConflict(agent, "preflight_files", {
      files: { "other.html": files["index.html"] },
      idempotency_key: "pre",
    });

    const dg = async () => (await t.ctx.db.select({ n: count() }).from(deployGrants))[0]!.n;
    const dgBefore = await dg();
    const g = await tenTimes(agent, "deploy_directory", { dir: "site", idempotency_key: "dir" });
    expect((g.structuredContent as { url: string }).url).toMatch(/\/deploy\/once\//);
    expect(await dg()).toBe(dgBefore + 1);
    await expectConflict(agent, "deploy_directory", { dir: "other", idempotency_key: "dir" });
  });

  it("add_webhook and remove_webhook: one webhook for ten calls, the same secret replayed, never stored in plain", async () => {
    const { agent, account } = await pro(flavour);
    const hooks = async () =>
      (await t.ctx.db.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, account.id)))[0]!.n;
    const added = await tenTimes(agent, "add_webhook", {
      url: "https://127.0.0.1/hook",
      events: ["drop.deployed"],
      idempotency_key: "hook",
    });
    const w = added.structuredContent as { id: string; secret: string };
    expect(w.secret).toMatch(/^whsec_/);
    expect(resultText(added)).toContain(w.secret);
    expect(await hooks()).toBe(1);
    const [row] = await t.ctx.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.caller, `a:${account.id}`), eq(idempotencyKeys.key, "hook")));
    expect(row!.body).toContain(w.id);
    expect(row!.body).not.toContain(w.secret);
    expect(row!.body).not.toContain(w.secret.slice("whsec_".length, 30));
    await expectConflict(agent, "add_webhook", { url: "https://127.0.0.1/other", idempotency_key: "hook" });
    expect(await hooks()).toBe(1);

    expect(
      (await tenTimes(agent, "remove_webhook", { id: w.id, idempotency_key: "unhook" })).structuredContent,
    ).toEqual({ deleted: w.id });
    expect(await hooks()).toBe(0);
    expect(errorCode(await agent.call("remove_webhook", { id: w.id }))).toBe("not_found");
  });

  it("an out-of-range key is an isError result with invalid_request on every write tool, and writes nothing", async () => {
    const { agent, account } = await pro(flavour);
    const slug = (
      (await agent.call("deploy_named", { name: "bounds", files: { "index.html": "v1" } })).structuredContent as {
        slug: string;
      }
    ).slug;
    const args: Record<string, Record<string, unknown>> = {
      add_domain: { hostname: "docs.example.test", slug },
      add_webhook: { url: "https://127.0.0.1/bounds" },
      remove_domain: { hostname: "docs.example.test" },
      remove_webhook: { id: "wh_abcdefghijklmnopqrstuvwx" },
      verify_domain: { hostname: "docs.example.test" },
      append_files: { slug, files: { "x.html": "x" } },
      delete_drop: { slug },
      deploy_directory: {},
      deploy_files: { files: { "index.html": "x" } },
      deploy_html: { html: "x" },
      deploy_named: { name: "bounds", files: { "index.html": "v2" } },
      preflight_files: { files: { "index.html": { sha256: sha("x"), size: 1 } } },
      rollback_drop: { slug, version: 1 },
      set_alias: { slug, name: "bounds", version: 1 },
      delete_alias: { slug, name: "bounds" },
      set_access: { slug, mode: "password", password: "a long passphrase" },
      create_share_link: { slug, expires_in_hours: 1 },
      create_review_link: { slug },
      reply_comment: { slug, comment_id: "cmt_bounds", body: "x" },
      resolve_comment: { slug, comment_id: "cmt_bounds" },
      upload_content: { sha256: sha("x"), content: "x" },
    };
    expect(Object.keys(args).sort()).toEqual(WRITE_TOOLS);
    const drops = await countDrops(t.ctx.db);
    const k255 = "k".repeat(255);
    for (const [name, a] of Object.entries(args)) {
      for (const key of ["", "k".repeat(256), "new\nline", "é", 42]) {
        const r = await agent.call(name, { ...a, idempotency_key: key });
        expect(r.isError, `${name} ${JSON.stringify(key)}`).toBe(true);
        expect(errorCode(r), `${name} ${JSON.stringify(key)}`).toBe("invalid_request");
        expect(resultText(r)).toMatch(/^Error \(invalid_request\): /m);
      }
      expect(resultText(await agent.call(name, { ...a, idempotency_key: "" }))).toMatch(
        /^Hint: Pass idempotency_key as 1 to 255 printable ASCII characters/m,
      );
    }
    expect(await countDrops(t.ctx.db)).toBe(drops);
    expect((await t.ctx.db.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, account.id)))[0]!.n).toBe(
      0,
    );
    expect((await agent.call("list_aliases", { slug })).structuredContent).toEqual({ aliases: [] });
    const { drop, versions } = await versionsOf(slug);
    expect({ versions, live: drop.liveVersion, mode: drop.accessMode }).toEqual({
      versions: 1,
      live: 1,
      mode: "public",
    });
    // The bounds themselves are accepted.
    expect((await agent.call("deploy_html", { html: "edge", idempotency_key: k255 })).isError).toBe(false);
    expect((await agent.call("deploy_html", { html: "edge", idempotency_key: "k" })).isError).toBe(false);
  });
});
