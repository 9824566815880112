import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connectInProcess, resultText, type CallResult, type McpMode } from "../support/mcp";
import * as mcpRoute from "@/app/mcp/route";
import { MCP_BODY_CAP } from "@/lib/mcp/server";
import { LIST_LIMIT_MAX, MAX_OFFSET } from "@/lib/schemas";
import { limits as planLimits, TTL_CEILING_SECONDS, type Plan } from "@/lib/plans";
import { drops } from "@/lib/db/schema";
import { count } from "drizzle-orm";
import { parseEnv } from "@/lib/env";
import { decideDevice, type DeviceAuthorization } from "@/lib/device/flow";
import * as deviceAuthorizeRoute from "@/app/device/authorize/route";
import * as deviceTokenRoute from "@/app/device/token/route";
import { serveGET } from "../support/serve";
import { suiteContext, apiRequest, clearOfMinuteEdge, dropRequest, TEST_BASE_URL } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { TOOL_NAMES } from "../support/tools";

// POST /mcp through the real @modelcontextprotocol/client (modern pinned and legacy default
// mode), dispatched in-process into the route handler, plus hand-written protocol cases.

const DEPLOYS_PER_MINUTE = 5;
const AGENT_ORIGIN = "https://agent.example.com";
let ipN = 0;
const nextIp = () => `198.51.100.${++ipN}`;

const t = suiteContext({
  RATE_LIMIT_DEPLOYS_PER_MINUTE: String(DEPLOYS_PER_MINUTE),
  MCP_ALLOWED_ORIGINS: `${AGENT_ORIGIN}, http://127.0.0.1:4444`,
});

async function connect(mode: McpMode, opts: { credential?: string; ip?: string } = {}): Promise<Client> {
  return connectInProcess(mode, { credential: opts.credential, ip: opts.ip ?? nextIp() });
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallResult;
const text = resultText;
/**
 * The envelope of a failed call, as an agent reads it: the text names the code and the hint;
 * _meta carries the same envelope for programs; no structuredContent (SDK 1.x would refuse it).
 */
function failure(r: CallResult): Record<string, unknown> {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  const env = r._meta?.["dev.dropsite/error"] as {
    code: string;
    error: string;
    hint?: string;
    upgrade_url?: string;
  } & Record<string, unknown>;
  expect(text(r)).toContain(`Error (${env.code}): ${env.error}`);
  if (env.hint) expect(text(r)).toContain(`Hint: ${env.hint}`);
  return env;
}
const visit = (slug: string, path = "/") => serveGET(dropRequest(slug, `/api/serve-drop${path}`));

describe.each<McpMode>(["modern", "legacy"])("the real MCP client in %s mode", (mode) => {
  it("connects in the expected era", async () => {
    const client = await connect(mode);
    expect(client.getProtocolEra()).toBe(mode);
    expect(client.getNegotiatedProtocolVersion()).toBe(mode === "modern" ? "2026-07-28" : "2025-11-25");
    expect(client.getServerVersion()?.name).toBe("dropsite");
    expect(client.getInstructions()).toContain("deploy_html");
    await client.close();
  });

  it("lists the tools with titles, 2020-12 schemas, examples and truthful annotations", async () => {
    const client = await connect(mode);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(tool.outputSchema?.type).toBe("object");
      expect((tool.inputSchema as { examples?: unknown[] }).examples?.length, tool.name).toBeGreaterThan(0);
      // Compact: no ±2^53 bounds, no date-time patterns.
      expect(JSON.stringify(tool)).not.toContain("9007199254740991");
      expect(JSON.stringify(tool.outputSchema)).not.toMatch(/"format":"date-time","pattern"/);
    }
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    expect(byName.deploy_html!.inputSchema.required).toEqual(["html"]);
    expect(Object.keys(byName.deploy_files!.inputSchema.properties ?? {}).sort()).toEqual([
      "alias",
      "files",
      "idempotency_key",
      "render_check",
      "ttl",
      "upload_token",
    ]);
    expect(byName.deploy_named!.inputSchema.required).toEqual(["name", "files"]);
    // The rules, with the numbers of lib/plans.ts.
    const files = (
      byName.deploy_files!.inputSchema.properties as Record<
        string,
        { maxProperties?: number; description?: string; propertyNames?: { pattern: string } }
      >
    ).files!;
    expect(files.maxProperties).toBe(900);
    expect(files.description).toContain("anonymous and free: 100; pro and team: 900");
    const pathRe = new RegExp(files.propertyNames!.pattern);
    for (const ok of ["index.html", "assets/app.js", "a b/ü.css"]) expect(pathRe.test(ok), ok).toBe(true);
    for (const bad of ["/abs.html", "../x", "a/../b", "a//b", "a\\b", "C:/x", "a/", ""])
      expect(pathRe.test(bad), bad).toBe(false);
    const ttl = (
      byName.deploy_html!.inputSchema.properties as Record<
        string,
        { minimum?: number; maximum?: number; description?: string }
      >
    ).ttl!;
    expect(ttl).toMatchObject({ minimum: 60 });
    // The most any plan accepts (100 years); the description gives each plan its own maximum.
    expect(ttl.maximum).toBe(TTL_CEILING_SECONDS);
    expect(ttl.description).toContain("free: 604800 (7 days)");
    expect(JSON.stringify(byName.deploy_files!.inputSchema)).toContain("[A-Za-z0-9+/]{4}");
    expect((byName.deploy_files!.inputSchema.properties as Record<string, { type?: string }>).ttl!.type).toBe(
      "integer",
    );
    expect(byName.list_drops!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.get_limits!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.delete_drop!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get_drop!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.set_access!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(byName.set_access!.inputSchema.required).toEqual(["slug", "mode"]);
    for (const name of ["deploy_html", "deploy_files"])
      expect(byName[name]!.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
    // A repeated append adds nothing (its paths exist by then and are refused).
    expect(byName.append_files!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.deploy_named!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.rollback_drop!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    for (const name of ["deploy_html", "deploy_files", "deploy_named", "append_files", "rollback_drop"])
      expect(Object.keys(byName[name]!.inputSchema.properties ?? {}), name).toContain("idempotency_key");
    await client.close();
  });

  it("anonymous: deploy_html publishes a page and explains how to claim it", async () => {
    const client = await connect(mode);
    const html = `<h1>hello from ${mode} mcp</h1>`;
    const r = await call(client, "deploy_html", { html });
    expect(r.isError).toBeFalsy();
    const d = r.structuredContent as {
      slug: string;
      url: string;
      files: string[];
      plan: string;
      expires_at: string;
      claim_token: string;
    };
    expect(d.files).toEqual(["index.html"]);
    expect(d.url).toBe(`http://${d.slug}.drops.localhost:3000/`);
    expect(d.claim_token).toBeTruthy();
    expect(d.expires_at).toBe(new Date(t.clock.now + 30 * 86_400_000).toISOString());
    expect(text(r)).toContain(d.url);
    expect(text(r)).toContain(d.claim_token);
    expect(text(r)).toContain(`${TEST_BASE_URL}/claim`);
    const page = await visit(d.slug);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(html);
    await client.close();
  });

  it("anonymous: deploy_files publishes text and base64 files", async () => {
    const client = await connect(mode);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    const r = await call(client, "deploy_files", {
      files: { "index.html": "<p>files</p>", "img/dot.png": { encoding: "base64", content: png.toString("base64") } },
    });
    expect(r.isError).toBeFalsy();
    const d = r.structuredContent as { slug: string; files: string[]; claim_token?: string };
    expect(d.files.sort()).toEqual(["img/dot.png", "index.html"]);
    expect(d.claim_token).toBeTruthy();
    expect(await (await visit(d.slug)).text()).toBe("<p>files</p>");
    const img = await visit(d.slug, "/img/dot.png");
    expect(img.status).toBe(200);
    expect(Buffer.from(await img.arrayBuffer())).toEqual(png);
    await client.close();
  });

  it("deploy_files carries the deploy report in structuredContent and, compactly, in the text", async () => {
    const client = await connect(mode);
    const key = `sp_${"Mq7_-".repeat(8)}z9Q`;
    const r = await call(client, "deploy_files", {
      files: { "page.html": `<img src="img/missing.png"><script>const k = "${key}"</script>` },
    });
    expect(r.isError).toBeFalsy();
    const d = r.structuredContent as {
      report: { missing_references: unknown[]; warnings: { kind: string; secret_kind?: string }[] };
    };
    expect(d.report.missing_references).toEqual([{ path: "page.html", ref: "img/missing.png" }]);
    expect(d.report.warnings.map((w) => w.secret_kind ?? w.kind)).toEqual(["no_index", "dropsite_api_key"]);
    expect(text(r)).toContain("Report: 2 warnings, 1 missing reference.");
    expect(text(r)).toContain("missing page.html → img/missing.png");
    expect(JSON.stringify(r)).not.toContain(key);
    await client.close();
  });

  it("anonymous: get_limits reports the anonymous tier; list_drops and delete_drop need a key", async () => {
    const client = await connect(mode);
    const limits = await call(client, "get_limits", {});
    expect(limits.isError).toBeFalsy();
    expect(limits.structuredContent).toMatchObject({
      plan: "anonymous",
      paid: false,
      limits: { files_per_request: 100, deploys_per_minute: DEPLOYS_PER_MINUTE },
    });
    for (const [name, args] of [
      ["list_drops", {}],
      ["delete_drop", { slug: "whatever" }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(failure(r)).toMatchObject({ code: "auth_required", docs_url: `${TEST_BASE_URL}/docs#authentication` });
      expect(text(r)).toContain(
        "Hint: This tool needs an API key: configure your MCP client to send Authorization: Bearer sp_",
      );
    }
    await client.close();
  });

  it("with a pro key: named deploy, ttl, list, delete — every tool acts as that account", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const client = await connect(mode, { credential: apiKey });
    const limits = await call(client, "get_limits", {});
    expect(limits.structuredContent).toMatchObject({
      plan: "pro",
      paid: true,
      limits: { files_per_request: 900, named_drops: true },
    });

    const first = await call(client, "deploy_named", {
      files: { "index.html": "<p>v1</p>" },
      name: `blog-${mode}`,
      ttl: 3600,
    });
    expect(first.isError).toBeFalsy();
    const d1 = first.structuredContent as {
      slug: string;
      name: string;
      replaced: boolean;
      expires_at: string;
      claim_token?: string;
      plan: string;
    };
    expect(d1).toMatchObject({ name: `blog-${mode}`, replaced: false, plan: "pro" });
    expect(d1.claim_token).toBeUndefined();
    expect(d1.expires_at).toBe(new Date(t.clock.now + 3600_000).toISOString());
    const second = await call(client, "deploy_named", { files: { "index.html": "<p>v2</p>" }, name: `blog-${mode}` });
    const d2 = second.structuredContent as { slug: string; replaced: boolean; expires_at: string | null };
    expect(d2.slug).toBe(d1.slug);
    expect(d2.replaced).toBe(true);
    expect(await (await visit(d1.slug)).text()).toBe("<p>v2</p>");
    const other = await call(client, "deploy_files", { files: { "index.html": "<p>other</p>" } });
    const otherSlug = (other.structuredContent as { slug: string }).slug;

    const list = await call(client, "list_drops", { limit: 10 });
    expect(list.isError).toBeFalsy();
    const page = list.structuredContent as { total: number; drops: { slug: string }[] };
    expect(page.total).toBe(2);
    expect(page.drops.map((x) => x.slug).sort()).toEqual([d1.slug, otherSlug].sort());
    expect(text(list)).toContain(d1.slug);
    const paged = await call(client, "list_drops", { limit: 1, offset: 1 });
    expect((paged.structuredContent as { drops: unknown[] }).drops).toHaveLength(1);
    // The paging bounds are the API's (GET /drops): the last offset is a page (empty), one past it and a page past 500 are invalid_request.
    const last = await call(client, "list_drops", { offset: MAX_OFFSET });
    expect(last.isError, text(last)).toBeFalsy();
    expect(last.structuredContent).toMatchObject({ total: 2, drops: [] });
    for (const args of [{ offset: MAX_OFFSET + 1 }, { limit: LIST_LIMIT_MAX + 1 }, { limit: 0 }]) {
      const refused = await call(client, "list_drops", args);
      expect(refused.isError).toBe(true);
      expect(failure(refused)).toMatchObject({ code: "invalid_request" });
    }

    const appended = await call(client, "append_files", {
      slug: otherSlug,
      files: { "about.html": "<p>about</p>", "img/x.bin": { encoding: "base64", content: "AAEC" } },
    });
    expect(appended.isError, text(appended)).toBeFalsy();
    expect(appended.structuredContent).toMatchObject({ slug: otherSlug, total_files: 3 });
    expect(await (await visit(otherSlug, "/about")).text()).toBe("<p>about</p>");
    expect(
      failure(await call(client, "append_files", { slug: otherSlug, files: { "about.html": "again" } })),
    ).toMatchObject({ code: "invalid_request" });

    const got = await call(client, "get_drop", { slug: otherSlug });
    expect(got.isError, text(got)).toBeFalsy();
    expect(got.structuredContent).toMatchObject({
      slug: otherSlug,
      plan: "pro",
      file_count: 3,
      total_bytes: 12 + 12 + 3,
      files_truncated: false,
      files: [
        { path: "about.html", size: 12, content_type: expect.stringContaining("text/html") },
        { path: "img/x.bin", size: 3, content_type: expect.any(String) },
        { path: "index.html", size: 12, content_type: expect.stringContaining("text/html") },
      ],
    });
    expect(text(got)).toContain("img/x.bin (3 bytes");

    const del = await call(client, "delete_drop", { slug: otherSlug });
    expect(del.isError).toBeFalsy();
    expect(del.structuredContent).toEqual({ deleted: otherSlug });
    expect((await visit(otherSlug)).status).toBe(404);
    const again = await call(client, "delete_drop", { slug: otherSlug });
    expect(again.isError).toBe(true);
    expect(failure(again)).toMatchObject({ code: "not_found", hint: expect.stringContaining("list_drops") });
    expect(failure(await call(client, "get_drop", { slug: otherSlug }))).toMatchObject({ code: "not_found" });
    // A pro account at 900 files per call: no plan allows more, so no upgrade advice.
    const tooMany = await call(client, "deploy_files", {
      files: Object.fromEntries(Array.from({ length: 901 }, (_, i) => [`f${i}.txt`, "x"])),
    });
    const capped = failure(tooMany);
    expect(capped).toMatchObject({ code: "file_cap_exceeded", hint: expect.stringContaining("append_files") });
    expect(capped.upgrade_url).toBeUndefined();
    expect(String(capped.hint)).not.toMatch(/POST|\/deploy/);
    await client.close();
  });

  it("an invalid credential is a tool error auth_required, never an anonymous deploy", async () => {
    const client = await connect(mode, { credential: `sp_${"x".repeat(43)}` });
    const r = await call(client, "deploy_html", { html: "<p>x</p>" });
    expect(r.isError).toBe(true);
    expect(failure(r)).toMatchObject({ code: "auth_required" });
    await client.close();
  });

  it("plan gates and bad input come back as isError results carrying the envelope", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const client = await connect(mode, { credential: apiKey });
    const gated = await call(client, "deploy_named", { files: { "index.html": "<p>x</p>" }, name: "mine" });
    expect(gated.isError).toBe(true);
    expect(failure(gated)).toMatchObject({
      code: "subscription_required",
      upgrade_url: expect.stringMatching(new RegExp(`^${TEST_BASE_URL}/`)),
    });
    expect(text(gated)).toContain("Hint: Named drops (deploy_named) and append_files need the pro or team plan");
    expect(failure(await call(client, "append_files", { slug: "whatever", files: { "a.html": "x" } }))).toMatchObject({
      code: "subscription_required",
    });
    const nameOnHtml = await call(client, "deploy_html", { html: "<p>x</p>", name: "mine" });
    expect(failure(nameOnHtml)).toMatchObject({
      code: "invalid_request",
      hint: expect.stringContaining("deploy_named"),
    });
    expect(text(gated)).toContain(`Upgrade: ${String(failure(gated).upgrade_url)}`);

    const ttl = await call(client, "deploy_html", { html: "<p>x</p>", ttl: 10 });
    expect(failure(ttl)).toMatchObject({ code: "invalid_ttl" });
    const ttlMax = await call(client, "deploy_html", { html: "<p>x</p>", ttl: 604_801 });
    expect(failure(ttlMax)).toMatchObject({ code: "invalid_ttl", hint: expect.stringContaining("at most 604800") });

    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, "x"]));
    const cap = await call(client, "deploy_files", { files: many });
    expect(failure(cap)).toMatchObject({
      code: "file_cap_exceeded",
      upgrade_url: failure(gated).upgrade_url,
      hint: expect.stringContaining("900 files per call"),
    });
    // The facts travel as data: in _meta's envelope and as a text line.
    expect(failure(cap)).toMatchObject({ limit: "files_per_request", allowed: 100 });
    expect(text(cap)).toContain("Limit: files_per_request = 100");
    expect(failure(ttl)).toMatchObject({ field: "ttl" });
    expect(failure(ttlMax)).toMatchObject({ limit: "ttl_max_seconds", allowed: 604_800 });

    const badPath = await call(client, "deploy_files", { files: { "../evil.html": "x" } });
    expect(failure(badPath)).toMatchObject({ code: "invalid_request" });
    const badB64 = await call(client, "deploy_files", {
      files: { "a.bin": { encoding: "base64", content: "not base64!" } },
    });
    expect(failure(badB64)).toMatchObject({ code: "invalid_request" });
    const missing = await call(client, "deploy_html", {});
    expect(missing.isError).toBe(true);
    expect(failure(missing)).toMatchObject({ code: "invalid_request" });
    expect(text(missing)).toContain("html");
    const extra = await call(client, "get_limits", { verbose: true });
    expect(failure(extra)).toMatchObject({ code: "invalid_request" });
    await client.close();
  });

  it("get_limits reports max_domains and max_webhooks per plan, from the plan table", async () => {
    const seen: Record<string, unknown> = {};
    for (const plan of ["anonymous", "free", "pro", "team"] as const) {
      const credential = plan === "anonymous" ? undefined : (await accountWithKey(t.ctx, plan satisfies Plan)).apiKey;
      const client = await connect(mode, { credential });
      const r = await call(client, "get_limits", {});
      expect(r.isError, plan).toBeFalsy();
      const l = r.structuredContent as { plan: string; limits: { max_domains: number; max_webhooks: number } };
      expect(l.plan).toBe(plan);
      expect({ max_domains: l.limits.max_domains, max_webhooks: l.limits.max_webhooks }, plan).toEqual({
        max_domains: planLimits[plan].maxDomains,
        max_webhooks: planLimits[plan].maxWebhooks,
      });
      seen[plan] = l.limits.max_domains + "/" + l.limits.max_webhooks;
      await client.close();
    }
    // The plans differ here (custom domains are Team's; webhooks need an account), so a tier read from the wrong row fails.
    expect(new Set(Object.values(seen)).size).toBe(4);
  });

  it("an unknown tool is a JSON-RPC -32602 error", async () => {
    const client = await connect(mode);
    await expect(client.callTool({ name: "deploy_zip", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it("a call over the size cap gets no upgrade advice: no plan raises it", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const client = await connect(mode, { credential: apiKey });
    const big = await call(client, "deploy_html", { html: "x".repeat(10 * 1024 * 1024 + 1) });
    const env = failure(big);
    expect(env).toMatchObject({
      code: "payload_too_large",
      hint: expect.stringContaining("10 MB"),
      limit: "body_bytes",
      allowed: 10 * 1024 * 1024,
    });
    expect(env.upgrade_url).toBeUndefined();
    await client.close();
  });

  it("calls refused for bad input do not use up the deploy quota", async () => {
    const client = await connect(mode, { ip: nextIp() });
    for (let i = 0; i < DEPLOYS_PER_MINUTE + 2; i++) {
      expect(failure(await call(client, "deploy_files", { files: { "../x": "y" } }))).toMatchObject({
        code: "invalid_request",
      });
      expect(failure(await call(client, "deploy_html", { html: "<p>x</p>", ttl: 5 }))).toMatchObject({
        code: "invalid_ttl",
      });
    }
    expect((await call(client, "deploy_html", { html: "<p>still allowed</p>" })).isError).toBeFalsy();
    await client.close();
  });

  it("deploy tools count against the deploy rate limit (per IP)", async () => {
    await clearOfMinuteEdge(t);
    const client = await connect(mode, { ip: nextIp() });
    for (let i = 0; i < DEPLOYS_PER_MINUTE; i++)
      expect((await call(client, "deploy_html", { html: `<p>${i}</p>` })).isError).toBeFalsy();
    const limited = await call(client, "deploy_files", { files: { "index.html": "x" } });
    expect(limited.isError).toBe(true);
    expect(failure(limited)).toMatchObject({ code: "rate_limited" });
    expect(text(limited)).toContain("Retry after 60 seconds");
    // Reading tools are not deploys.
    expect((await call(client, "get_limits", {})).isError).toBeFalsy();
    await client.close();
  });
});

// --- Hand-written protocol cases: status and JSON-RPC code for each rule ---

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...LEGACY_HEADERS,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
  };
}

const LEGACY_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(body: unknown, headers: Record<string, string> = LEGACY_HEADERS) {
  const res = await mcpRoute.POST(
    apiRequest("/mcp", { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) }),
    { params: Promise.resolve({}) },
  );
  const raw = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    raw,
    json: (raw ? JSON.parse(raw) : undefined) as {
      id?: unknown;
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data?: Record<string, unknown> };
    },
  };
}

const modernRequest = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: ENVELOPE },
});

describe("modern era (2026-07-28) on the wire", () => {
  it("server/discover lists the supported revision, tool and resource capabilities and serverInfo in _meta", async () => {
    const r = await post(modernRequest("server/discover", {}, "d1"), modernHeaders("server/discover"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.json.id).toBe("d1");
    expect(r.json.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "dropsite", version: "1.0.0" } },
    });
    expect(typeof r.json.result!.ttlMs).toBe("number");
  });

  it("tools/list carries resultType, ttlMs and cacheScope", async () => {
    const r = await post(modernRequest("tools/list"), modernHeaders("tools/list"));
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "public" });
    expect((r.json.result!.tools as unknown[]).length).toBe(TOOL_NAMES.length);
  });

  it("tools/call results carry resultType complete", async () => {
    const r = await post(
      modernRequest("tools/call", { name: "get_limits", arguments: {} }),
      modernHeaders("tools/call", "get_limits"),
    );
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      resultType: "complete",
      isError: false,
      structuredContent: { plan: "anonymous" },
    });
  });

  it("missing _meta answers 400 -32602", async () => {
    const r = await post({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }, modernHeaders("tools/list"));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 7, error: { code: -32602 } });
  });

  it.each([
    ["protocolVersion", { "io.modelcontextprotocol/clientCapabilities": {} }],
    ["clientCapabilities", { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }],
  ])("_meta without %s answers 400 -32602", async (_k, meta) => {
    const r = await post(
      { jsonrpc: "2.0", id: 8, method: "server/discover", params: { _meta: meta } },
      modernHeaders("server/discover"),
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 8, error: { code: -32602 } });
  });

  it("clientInfo is optional", async () => {
    const r = await post(modernRequest("server/discover"), modernHeaders("server/discover"));
    expect(r.status).toBe(200);
  });

  it("MCP-Protocol-Version different from the _meta version answers 400 -32020", async () => {
    const r = await post(modernRequest("tools/list"), {
      ...modernHeaders("tools/list"),
      "mcp-protocol-version": "2025-11-25",
    });
    expect(r.status).toBe(400);
    expect(r.json.error?.code).toBe(-32020);
  });

  it("a missing MCP-Protocol-Version, Mcp-Method or Mcp-Name header answers 400 -32020", async () => {
    const { "mcp-protocol-version": _v, ...noVersion } = modernHeaders("tools/list");
    expect((await post(modernRequest("tools/list"), noVersion)).json.error?.code).toBe(-32020);
    const { "mcp-method": _m, ...noMethod } = modernHeaders("tools/list");
    const r = await post(modernRequest("tools/list"), noMethod);
    expect(r.status).toBe(400);
    expect(r.json.error?.code).toBe(-32020);
    const noName = await post(
      modernRequest("tools/call", { name: "get_limits", arguments: {} }),
      modernHeaders("tools/call"),
    );
    expect(noName.status).toBe(400);
    expect(noName.json.error?.code).toBe(-32020);
  });

  it("Mcp-Method or Mcp-Name disagreeing with the body answers 400 -32020", async () => {
    const method = await post(modernRequest("tools/list"), modernHeaders("server/discover"));
    expect([method.status, method.json.error?.code]).toEqual([400, -32020]);
    const name = await post(
      modernRequest("tools/call", { name: "get_limits", arguments: {} }),
      modernHeaders("tools/call", "list_drops"),
    );
    expect([name.status, name.json.error?.code]).toEqual([400, -32020]);
    const encoded = await post(
      modernRequest("tools/call", { name: "get_limits", arguments: {} }),
      modernHeaders("tools/call", `=?base64?${Buffer.from("get_limits").toString("base64")}?=`),
    );
    expect(encoded.status).toBe(200);
  });

  it("an unsupported version answers 400 -32022 with data.supported and data.requested", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 9,
      method: "server/discover",
      params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    };
    const r = await post(body, { ...modernHeaders("server/discover"), "mcp-protocol-version": "2099-01-01" });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      id: 9,
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2099-01-01" } },
    });
  });

  it.each(["initialize", "ping", "logging/setLevel", "prompts/list", "no/such/method"])(
    "%s with a modern envelope answers 404 -32601",
    async (method) => {
      const r = await post(modernRequest(method, {}, 11), modernHeaders(method));
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ id: 11, error: { code: -32601 } });
    },
  );

  it("every JSON-RPC error names the request (error.data.request_id), the SDK's own included", async () => {
    const id = "5f0c7a52-9b0e-4d43-8f4e-1c2b3a4d5e6f";
    const unknownMethod = await post(modernRequest("no/such/method", {}, 12), {
      ...modernHeaders("no/such/method"),
      "x-request-id": id,
    });
    expect(unknownMethod.json).toMatchObject({ id: 12, error: { code: -32601, data: { request_id: id } } });
    const badMeta = await post(
      { jsonrpc: "2.0", id: 13, method: "tools/list", params: {} },
      { ...modernHeaders("tools/list"), "x-request-id": id },
    );
    expect(badMeta.json).toMatchObject({ id: 13, error: { code: -32602, data: { request_id: id } } });
    const notJson = await post("{not json", { ...LEGACY_HEADERS, "x-request-id": id });
    expect(notJson.json).toMatchObject({ error: { code: -32700, data: { request_id: id } } });
    // What the SDK put in data stays beside it.
    const version = await post(modernRequest("tools/list", {}, 14), {
      ...modernHeaders("tools/list"),
      "mcp-protocol-version": "2099-01-01",
      "x-request-id": id,
    });
    expect(version.json.error?.data?.request_id).toBe(id);
    // A result is not touched.
    const ok = await post(modernRequest("tools/list", {}, 15), { ...modernHeaders("tools/list"), "x-request-id": id });
    expect(ok.json.error).toBeUndefined();
    expect(ok.json.result).toBeDefined();
  });

  it("an unknown tool answers -32602 in-band", async () => {
    const r = await post(
      modernRequest("tools/call", { name: "nope", arguments: {} }),
      modernHeaders("tools/call", "nope"),
    );
    expect(r.status).toBe(200);
    expect(r.json.error?.code).toBe(-32602);
  });

  it("a __proto__ path in deploy_files is refused, not silently dropped", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_files","arguments":{"files":{"index.html":"x","__proto__":"y"}},"_meta":${JSON.stringify(ENVELOPE)}}}`;
    const r = await post(body, modernHeaders("tools/call", "deploy_files"));
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      isError: true,
      _meta: { "dev.dropsite/error": { code: "invalid_request" } },
    });
    expect(r.json.result).not.toHaveProperty("structuredContent");
  });
});

describe("JSON-RPC framing (both eras)", () => {
  it("a parse error answers 400 -32700 with id null", async () => {
    const r = await post("{not json", modernHeaders("tools/list"));
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it.each([
    ["modern", modernHeaders("tools/call", "deploy_html")],
    ["legacy", LEGACY_HEADERS],
    ["no protocol headers", { "content-type": "application/json" }],
  ])("a body over the cap answers 413 with a JSON-RPC error object, id null (%s)", async (_e, headers) => {
    const before = await dropCount();
    const big = JSON.stringify(
      modernRequest("tools/call", { name: "deploy_html", arguments: { html: "x".repeat(MCP_BODY_CAP) } }),
    );
    const r = await post(big, headers);
    expect(r.status).toBe(413);
    expect(r.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringContaining(`${MCP_BODY_CAP} bytes`) },
    });
    expect(r.json).not.toHaveProperty("code");
    expect(await dropCount()).toBe(before);
  });

  it.each([
    ["modern", modernHeaders("tools/call", "deploy_html")],
    ["legacy", LEGACY_HEADERS],
    ["2025-06-18", { ...LEGACY_HEADERS, "mcp-protocol-version": "2025-06-18" }],
    ["no protocol headers", { "content-type": "application/json" }],
  ])("a batch answers 400 -32600 saying batches are not supported, and runs nothing (%s)", async (_e, headers) => {
    const before = await dropCount();
    const deploy = modernRequest("tools/call", { name: "deploy_html", arguments: { html: "<h1>batched</h1>" } }, 1);
    const r = await post([deploy, modernRequest("tools/list", {}, 2)], headers);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Batches are not supported/) },
    });
    // An empty array is a batch too.
    const empty = await post("  []", headers);
    expect([empty.status, empty.json.error?.code]).toEqual([400, -32600]);
    expect(await dropCount()).toBe(before);
  });

  it.each([
    ["no jsonrpc", { id: 1, method: "tools/list" }],
    ["a bad id", { jsonrpc: "2.0", id: { x: 1 }, method: "tools/list" }],
    ["params that are not an object", { jsonrpc: "2.0", id: 1, method: "tools/list", params: [1] }],
  ])("%s answers 400 -32600", async (_n, body) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.json.error?.code).toBe(-32600);
  });

  it.each([
    ["legacy", { jsonrpc: "2.0", method: "notifications/initialized" }, LEGACY_HEADERS],
    [
      "modern",
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: ENVELOPE } },
      modernHeaders("notifications/cancelled"),
    ],
  ])("a %s notification answers 202 with no body", async (_e, body, headers) => {
    const r = await post(body, headers);
    expect(r.status).toBe(202);
    expect(r.raw).toBe("");
  });

  it.each(["GET", "DELETE", "PUT"] as const)("%s /mcp answers 405 with Allow: POST", async (method) => {
    const res = await mcpRoute[method](apiRequest("/mcp", { method }), { params: Promise.resolve({}) });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("legacy era (initialize, ≤ 2025-11-25)", () => {
  it("initialize echoes a supported version, offers tools, and opens no session", async () => {
    const r = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "dropsite" },
    });
    expect(r.json.result).not.toHaveProperty("resultType");
    expect(r.headers.get("mcp-session-id")).toBeNull();
  });

  it("initialize with an unknown version answers the newest legacy version", async () => {
    const r = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2020-01-01", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    expect(r.json.result?.protocolVersion).toBe("2025-11-25");
  });

  it("tools/list, tools/call and ping work without _meta", async () => {
    const headers = { ...LEGACY_HEADERS, "mcp-protocol-version": "2025-11-25" };
    const list = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    expect(list.status).toBe(200);
    expect((list.json.result!.tools as unknown[]).length).toBe(TOOL_NAMES.length);
    expect(list.json.result).not.toHaveProperty("ttlMs");
    const called = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_limits", arguments: {} } },
      headers,
    );
    expect(called.json.result).toMatchObject({ isError: false, structuredContent: { plan: "anonymous" } });
    expect((await post({ jsonrpc: "2.0", id: 3, method: "ping" }, headers)).json.result).toEqual({});
  });

  it("an unknown method answers -32601 in-band", async () => {
    const r = await post({ jsonrpc: "2.0", id: 4, method: "prompts/list" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it("server/discover without an envelope is a 2025-era request, where it does not exist: -32601 in-band", async () => {
    const r = await post({ jsonrpc: "2.0", id: 5, method: "server/discover" });
    expect(r.status).toBe(200);
    expect(r.json.error?.code).toBe(-32601);
  });

  it("a modern caller that sends no Accept header is served JSON too", async () => {
    const { accept: _a, ...noAccept } = modernHeaders("tools/list");
    const r = await post(modernRequest("tools/list"), noAccept);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
  });

  it("a caller that sends no Accept header (curl) is served JSON, not refused with 406", async () => {
    const r = await post({ jsonrpc: "2.0", id: 7, method: "tools/list" }, { "content-type": "application/json" });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect((r.json.result!.tools as unknown[]).length).toBe(TOOL_NAMES.length);
  });

  it("answers JSON, not an event stream", async () => {
    const r = await post({ jsonrpc: "2.0", id: 6, method: "tools/list" });
    expect(r.headers.get("content-type")).toBe("application/json");
  });
});

const dropCount = async () => (await t.ctx.db.select({ n: count() }).from(drops))[0]!.n;

describe("Origin policy and CORS", () => {
  const list = modernRequest("tools/list");

  it("a request without Origin (an agent, a CLI) is served and gets no CORS headers", async () => {
    const r = await post(list, modernHeaders("tools/list"));
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });

  it.each([TEST_BASE_URL, AGENT_ORIGIN, "http://127.0.0.1:4444"])(
    "Origin %s is allowed and answered with CORS headers",
    async (origin) => {
      const r = await post(list, { ...modernHeaders("tools/list"), origin });
      expect(r.status).toBe(200);
      expect(r.headers.get("access-control-allow-origin")).toBe(origin);
      expect(r.headers.get("vary")).toContain("Origin");
      expect((r.json.result!.tools as unknown[]).length).toBeGreaterThan(0);
    },
  );

  it.each(["https://evil.example", "http://agent.example.com", "https://agent.example.com:8443", "null"])(
    "Origin %s answers 403 and runs nothing",
    async (origin) => {
      const before = await dropCount();
      const r = await post(modernRequest("tools/call", { name: "deploy_html", arguments: { html: "<p>x</p>" } }), {
        ...modernHeaders("tools/call", "deploy_html"),
        origin,
      });
      expect(r.status).toBe(403);
      expect(r.json.error?.code).toBe(-32000);
      expect(r.json.error?.message).toContain("MCP_ALLOWED_ORIGINS");
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
      expect(await dropCount()).toBe(before);
    },
  );

  it("a preflight from an allowed origin allows POST with Authorization and the MCP headers", async () => {
    const res = await mcpRoute.OPTIONS(
      apiRequest("/mcp", {
        method: "OPTIONS",
        headers: {
          origin: AGENT_ORIGIN,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name",
        },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(AGENT_ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    for (const h of ["authorization", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name"])
      expect(res.headers.get("access-control-allow-headers")).toContain(h);
  });

  it("MCP_ALLOWED_ORIGINS accepts origins only, and names the bad entry", () => {
    expect(parseEnv({ MCP_ALLOWED_ORIGINS: "https://a.example, http://localhost:5173/" }).MCP_ALLOWED_ORIGINS).toEqual([
      "https://a.example",
      "http://localhost:5173",
    ]);
    expect(parseEnv({}).MCP_ALLOWED_ORIGINS).toEqual([]);
    for (const bad of ["https://a.example/path", "a.example", "ftp://a.example"])
      expect(() => parseEnv({ MCP_ALLOWED_ORIGINS: bad })).toThrow(/MCP_ALLOWED_ORIGINS.*not an origin/);
  });

  it("a preflight from a foreign origin answers 403 without CORS headers", async () => {
    const res = await mcpRoute.OPTIONS(
      apiRequest("/mcp", {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      }),
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("device authorisation (RFC 8628)", () => {
  type Authorization = DeviceAuthorization;

  it.each<McpMode>(["modern", "legacy"])(
    "over MCP (%s): pending, slow_down, approval, the key works once",
    async (mode) => {
      const { account } = await accountWithKey(t.ctx, "pro");
      const agent = await connect(mode);
      const started = await call(agent, "device_authorize", {});
      expect(started.isError, text(started)).toBeFalsy();
      const a = started.structuredContent as unknown as Authorization;
      expect(a).toMatchObject({ verification_uri: `${TEST_BASE_URL}/device`, expires_in: 600, interval: 5 });
      expect(a.user_code).toMatch(/^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/);
      expect(a.verification_uri_complete).toBe(`${TEST_BASE_URL}/device?code=${a.user_code}`);
      expect(text(started)).toContain(a.verification_uri_complete);

      expect(failure(await call(agent, "device_token", { device_code: a.device_code }))).toMatchObject({
        code: "authorization_pending",
      });
      const fast = failure(await call(agent, "device_token", { device_code: a.device_code }));
      expect(fast).toMatchObject({ code: "slow_down", hint: expect.stringContaining("10 seconds") });

      // The person approves on /device (the page's action calls this service as their account).
      expect(await decideDevice(t.ctx, account, a.user_code.toLowerCase().replace("-", " "), true)).toEqual({
        user_code: a.user_code,
        status: "approved",
        claims: [],
      });
      t.clock.advance(10);
      const got = await call(agent, "device_token", { device_code: a.device_code });
      expect(got.isError, text(got)).toBeFalsy();
      const key = got.structuredContent as { api_key: string; access_token: string; account_id: string; plan: string };
      expect(key).toMatchObject({ account_id: account.id, plan: "pro", token_type: "Bearer" });
      expect(key.api_key).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
      expect(key.access_token).toBe(key.api_key);
      await agent.close();

      const authed = await connect(mode, { credential: key.api_key });
      expect((await call(authed, "list_drops", {})).isError).toBeFalsy();
      await authed.close();

      t.clock.advance(10);
      const again = await connect(mode);
      expect(failure(await call(again, "device_token", { device_code: a.device_code }))).toMatchObject({
        code: "expired_token",
        hint: expect.stringContaining("device_authorize"),
      });
      expect(failure(await call(again, "device_token", { device_code: "made-up" }))).toMatchObject({
        code: "expired_token",
      });
      await again.close();
    },
  );

  it("over REST: a denied request answers access_denied; an unapproved one expires; a code is decided once", async () => {
    const { account } = await accountWithKey(t.ctx, "free");
    const authorize = async () => {
      const res = await deviceAuthorizeRoute.POST(apiRequest("/device/authorize", { method: "POST", ip: nextIp() }), {
        params: Promise.resolve({}),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Authorization;
    };
    const poll = async (device_code: string) => {
      const res = await deviceTokenRoute.POST(
        apiRequest("/device/token", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ device_code }),
        }),
        { params: Promise.resolve({}) },
      );
      return { status: res.status, body: (await res.json()) as { code?: string; hint?: string; api_key?: string } };
    };

    const denied = await authorize();
    expect(await decideDevice(t.ctx, account, denied.user_code, false)).toMatchObject({ status: "denied" });
    await expect(decideDevice(t.ctx, account, denied.user_code, true)).rejects.toMatchObject({ code: "not_found" });
    expect(await poll(denied.device_code)).toMatchObject({ status: 403, body: { code: "access_denied" } });

    const stale = await authorize();
    expect(await poll(stale.device_code)).toMatchObject({ status: 400, body: { code: "authorization_pending" } });
    t.clock.advance(601);
    expect(await poll(stale.device_code)).toMatchObject({ status: 400, body: { code: "expired_token" } });
    await expect(decideDevice(t.ctx, account, stale.user_code, true)).rejects.toMatchObject({ code: "not_found" });

    const bad = await deviceTokenRoute.POST(
      apiRequest("/device/token", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      { params: Promise.resolve({}) },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe("invalid_request");
  });

  it("device_authorize is rate limited per address", async () => {
    await clearOfMinuteEdge(t);
    const ip = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (
          await deviceAuthorizeRoute.POST(apiRequest("/device/authorize", { method: "POST", ip }), {
            params: Promise.resolve({}),
          })
        ).status,
      );
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
