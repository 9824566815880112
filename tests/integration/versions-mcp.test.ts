import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { serveGET } from "../support/serve";
import { countDrops } from "@/lib/db/queries";
import { suiteContext, dropRequest } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { limits } from "@/lib/plans";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";

// MCP: list_versions and rollback_drop mirror the REST answers; write tools take
// idempotency_key (a retry with the same key and arguments returns the first result).

const t = suiteContext({}, { freshLimiter: true });
let ipN = 0;
const connect = (credential?: string): Promise<Client> =>
  connectInProcess("modern", { credential, ip: `198.51.100.${++ipN}` });
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallResult;
const errorCode = (r: CallResult) => (r._meta?.["dev.dropsite/error"] as { code: string } | undefined)?.code;
const served = async (slug: string) => (await serveGET(dropRequest(slug, "/api/serve-drop/"))).text();

describe("MCP list_versions and rollback_drop", () => {
  it("lists versions and rolls back, with the REST shapes; declared destructive and idempotent", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connect(apiKey);
    const tools = (await agent.listTools()).tools;
    expect(tools.find((x) => x.name === "rollback_drop")?.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
      readOnlyHint: false,
    });
    expect(tools.find((x) => x.name === "list_versions")?.annotations).toMatchObject({ readOnlyHint: true });

    const first = await call(agent, "deploy_named", { name: "mcpv", files: { "index.html": "one" } });
    const slug = (first.structuredContent as { slug: string; version: number }).slug;
    expect(first.structuredContent).toMatchObject({ version: 1 });
    expect(
      (await call(agent, "deploy_named", { name: "mcpv", files: { "index.html": "two" } })).structuredContent,
    ).toMatchObject({ version: 2, replaced: true });
    const same = await call(agent, "deploy_named", { name: "mcpv", files: { "index.html": "two" } });
    expect(same.structuredContent).toMatchObject({ version: 2, unchanged: true });
    expect(resultText(same)).toContain("Unchanged");

    const list = await call(agent, "list_versions", { slug });
    expect(list.structuredContent).toMatchObject({
      total: 2,
      live_version: 2,
      versions: [
        { version: 2, kind: "replace", live: true },
        { version: 1, kind: "deploy", live: false },
      ],
    });
    const back = await call(agent, "rollback_drop", { slug, version: 1 });
    expect(back.isError).toBe(false);
    expect(back.structuredContent).toEqual({ slug, url: `http://${slug}.drops.localhost:3000/`, live_version: 1 });
    expect(await served(slug)).toBe("one");
    expect((await call(agent, "get_drop", { slug })).structuredContent).toMatchObject({ live_version: 1 });
    expect((await call(agent, "get_limits", {})).structuredContent).toMatchObject({ limits: { versions_kept: 100 } });

    expect(errorCode(await call(agent, "rollback_drop", { slug, version: 9 }))).toBe("not_found");
    expect(errorCode(await call(agent, "rollback_drop", { slug, version: 1.5 }))).toBe("invalid_request");
    const other = await connect((await accountWithKey(t.ctx, "pro")).apiKey);
    expect(errorCode(await call(other, "rollback_drop", { slug, version: 2 }))).toBe("not_found");
    expect(errorCode(await call(other, "list_versions", { slug }))).toBe("not_found");
    expect(await served(slug)).toBe("one");
  });
});

describe("MCP idempotency_key", () => {
  it("a retried deploy with the same key and arguments returns the first result and creates nothing", async () => {
    const agent = await connect();
    const drops = await countDrops(t.ctx.db);
    const args = { html: "<p>once</p>", idempotency_key: "mcp-key-1" };
    const first = await call(agent, "deploy_html", args);
    expect(first.isError).toBe(false);
    const again = await call(agent, "deploy_html", args);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await countDrops(t.ctx.db)).toBe(drops + 1);
    expect(errorCode(await call(agent, "deploy_html", { html: "<p>other</p>", idempotency_key: "mcp-key-1" }))).toBe(
      "conflict",
    );
  });

  it("a replayed rollback_drop moves nothing; bad keys are invalid_request results", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connect(apiKey);
    const slug = (
      (await call(agent, "deploy_named", { name: "mcpk", files: { "index.html": "v1" } })).structuredContent as {
        slug: string;
      }
    ).slug;
    await call(agent, "deploy_named", { name: "mcpk", files: { "index.html": "v2" } });
    expect(
      (await call(agent, "rollback_drop", { slug, version: 1, idempotency_key: "rb" })).structuredContent,
    ).toMatchObject({ live_version: 1 });
    await call(agent, "rollback_drop", { slug, version: 2 });
    expect(
      (await call(agent, "rollback_drop", { slug, version: 1, idempotency_key: "rb" })).structuredContent,
    ).toMatchObject({ live_version: 1 });
    expect(await served(slug)).toBe("v2");
    for (const key of ["", "k".repeat(256), "new\nline"]) {
      expect(
        errorCode(
          await call(agent, "deploy_named", { name: "mcpk", files: { "index.html": "v3" }, idempotency_key: key }),
        ),
      ).toBe("invalid_request");
    }
    expect(await served(slug)).toBe("v2");
  });
});

describe("the version and access tools speak in tools and the plan's numbers", () => {
  it("descriptions carry versions kept per plan; errors' hints name the tool to call", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connect(apiKey);
    const tools = (await agent.listTools()).tools;
    for (const name of ["list_versions", "rollback_drop"]) {
      expect(tools.find((x) => x.name === name)?.description, name).toContain(
        "Versions kept per drop, the live one included — anonymous and free: 5; pro and team: 100",
      );
    }
    expect(tools.find((x) => x.name === "list_drops")?.description).toContain("limit (1–500, default 100)");
    expect(resultText(await call(agent, "get_limits", {}))).toContain("100 versions kept per drop");

    const slug = (
      (await call(agent, "deploy_named", { name: "hinted", files: { "index.html": "v1" } })).structuredContent as {
        slug: string;
      }
    ).slug;
    const pruned = await call(agent, "rollback_drop", { slug, version: 7 });
    expect(errorCode(pruned)).toBe("not_found");
    expect(resultText(pruned)).toMatch(/^Hint: Call list_versions \{slug\}/m);
    expect(resultText(pruned)).not.toContain("GET /drops");
    for (const args of [
      { slug, mode: "password", password: "short" },
      { slug, mode: "password" },
      { slug, mode: "hidden" },
    ]) {
      const r = await call(agent, "set_access", args);
      expect(errorCode(r), JSON.stringify(args)).toBe("invalid_request");
      expect(resultText(r), JSON.stringify(args)).toMatch(
        /^Hint: Call set_access with \{slug, mode: "password", password\} \(a password of 8 to 128 characters\), \{slug, mode: "members"\} \(a team's drop only\) or \{slug, mode: "public"\}\./m,
      );
    }
  });
});

describe("the webhook tools' errors name tools", () => {
  it("an unknown webhook points at list_webhooks; the cap at remove_webhook", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "free");
    const agent = await connect(apiKey);
    const missing = await call(agent, "remove_webhook", { id: "wh_abcdefghijklmnopqrstuvwx" });
    expect(errorCode(missing)).toBe("not_found");
    expect(resultText(missing)).toMatch(/^Hint: Call list_webhooks for the ids/m);
    expect(resultText(missing)).not.toContain("list_drops");
    const before = t.ctx.env.WEBHOOKS_ALLOW_PRIVATE;
    t.ctx.env.WEBHOOKS_ALLOW_PRIVATE = true;
    try {
      for (let i = 0; i < limits[account.plan].maxWebhooks; i++)
        expect((await call(agent, "add_webhook", { url: `https://127.0.0.1/h${i}` })).isError).toBe(false);
      const full = await call(agent, "add_webhook", { url: "https://127.0.0.1/more" });
      expect(errorCode(full)).toBe("invalid_request");
      expect(resultText(full)).toMatch(
        /^Hint: Call list_webhooks, then remove_webhook for one you no longer use; or see upgrade_url/m,
      );
      expect(resultText(full)).toMatch(/^Upgrade: /m);
    } finally {
      t.ctx.env.WEBHOOKS_ALLOW_PRIVATE = before;
    }
  });
});
