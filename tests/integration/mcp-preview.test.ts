import { describe, expect, it } from "vitest";
import { suiteContext } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as mcpRoute from "@/app/mcp/route";
import { TEST_BASE_URL } from "../support/context";
import { qrModules } from "@/lib/mcp/preview";

// The MCP Apps preview (io.modelcontextprotocol/ui): the server declares resources, lists and
// reads one ui:// resource of type text/html;profile=mcp-app, and the deploy tools name it in
// tools/list. The resource is static and holds no data; the view gets the tool result from the
// host. Clients that know nothing of it get the same text results as before.

const t = suiteContext({}, { freshLimiter: true });
const URI = "ui://dropsite/deploy-preview.html";
const MIME = "text/html;profile=mcp-app";
let ipN = 0;
const ip = () => `192.0.2.${++ipN}`;

/** SDK 1.x in-process, for the resource calls (its listResources/readResource). */
async function sdk1(): Promise<Client1> {
  const client = new Client1({ name: "preview-1x", version: "1.0.0" });
  const addr = ip();
  await client.connect(
    new Transport1(new URL(`${TEST_BASE_URL}/mcp`), {
      fetch: async (input, init) => {
        const req = new Request(input, init);
        const headers = new Headers(req.headers);
        headers.set("x-dropsite-socket-ip", addr);
        return mcpRoute.POST(new Request(req, { headers }), { params: Promise.resolve({}) });
      },
    }),
  );
  return client;
}

interface Listed {
  uri: string;
  mimeType?: string;
  _meta?: { ui?: { csp?: { frameDomains?: string[] } } };
}

describe("the deploy preview resource", () => {
  it.each(["modern", "legacy", "sdk-1.x"] as const)(
    "%s: the server declares resources; resources/list and resources/read return the preview",
    async (mode) => {
      const client = mode === "sdk-1.x" ? await sdk1() : await connectInProcess(mode, { ip: ip() });
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      const listed = (await client.listResources()).resources as Listed[];
      expect(listed.map((r) => r.uri)).toEqual([URI]);
      expect(listed[0]).toMatchObject({
        mimeType: MIME,
        _meta: { ui: { csp: { frameDomains: ["http://*.drops.localhost:3000"] } } },
      });

      const read = await client.readResource({ uri: URI });
      expect(read.contents).toHaveLength(1);
      const c = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: Listed["_meta"] };
      expect(c).toMatchObject({
        uri: URI,
        mimeType: MIME,
        _meta: { ui: { csp: { frameDomains: ["http://*.drops.localhost:3000"] } } },
      });
      const html = c.text;
      expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
      // What the view shows: URL, expiry, claim token, a labelled QR code, a sandboxed frame.
      for (const part of [
        'id="url"',
        'id="expires"',
        'id="token"',
        'role="img" aria-labelledby="qr-title"',
        "<figcaption",
        '<iframe id="frame"',
        'sandbox="allow-scripts allow-forms"',
        'role="status"',
      ])
        expect(html).toContain(part);
      // The frame may load drop hosts and nothing else; the view has no network of its own.
      expect(html).toContain("frame-src http://*.drops.localhost:3000;");
      expect(html).toContain("default-src 'none'");
      // The official App class is inside, and nothing closes the script early.
      expect(html).toContain("const ExtApps={");
      expect(html.match(/<\/script/g)).toHaveLength(1);
      await client.close();
    },
  );

  it("holds no data or secret: the same bytes for every caller, no token or key inside", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const anon = await connectInProcess("modern", { ip: ip() });
    const owner = await connectInProcess("modern", { ip: ip(), credential: apiKey });
    const deployed = await anon.callTool({ name: "deploy_html", arguments: { html: "<p>secret-free</p>" } });
    const token = (deployed.structuredContent as { claim_token: string }).claim_token;
    const a = ((await anon.readResource({ uri: URI })).contents[0] as { text: string }).text;
    const b = ((await owner.readResource({ uri: URI })).contents[0] as { text: string }).text;
    expect(a).toBe(b);
    for (const secret of [token, apiKey, t.ctx.env.NEXTAUTH_SECRET ?? "no-secret-configured"])
      expect(a).not.toContain(secret);
    expect(a).not.toMatch(/\b(ct|sp|ut|dg)_[A-Za-z0-9_-]{20,}/);
  });

  it("an unknown resource is a JSON-RPC error", async () => {
    const client = await connectInProcess("modern", { ip: ip() });
    await expect(client.readResource({ uri: "ui://dropsite/other.html" })).rejects.toThrow(/Unknown resource/);
  });
});

describe("the deploy tools link the preview", () => {
  it.each(["modern", "legacy"] as const)(
    "%s: tools/list carries _meta.ui.resourceUri (and ui/resourceUri) on the deploy tools only",
    async (mode) => {
      const client = await connectInProcess(mode, { ip: ip() });
      const tools = (await client.listTools()).tools;
      const linked = tools.filter((x) => x._meta !== undefined);
      expect(linked.map((x) => x.name).sort()).toEqual(["deploy_files", "deploy_html", "deploy_named"]);
      for (const x of linked) expect(x._meta, x.name).toEqual({ ui: { resourceUri: URI }, "ui/resourceUri": URI });
    },
  );

  it("SDK 1.x sees the link too", async () => {
    const client = await sdk1();
    const tools = (await client.listTools()).tools;
    expect(tools.find((x) => x.name === "deploy_html")?._meta).toMatchObject({ ui: { resourceUri: URI } });
  });

  it("text and structured results are unchanged; only the result's _meta adds the QR code of the URL", async () => {
    const client = await connectInProcess("modern", { ip: ip() });
    const r = (await client.callTool({ name: "deploy_html", arguments: { html: "<p>plain</p>" } })) as CallResult;
    const d = r.structuredContent as { url: string; slug: string; expires_at: string; claim_token: string };
    expect(r.content).toHaveLength(1);
    expect(resultText(r)).toBe(
      [
        `Deployed 1 file: ${d.url} (version 1)`,
        `Expires at ${d.expires_at}.`,
        `This drop is anonymous: it is online for 30 days, then claimable for 30 more. To keep it, your human logs in at ${t.ctx.env.BASE_URL} and claims it with slug ${d.slug} and claim_token ${d.claim_token} ` +
          `(or sends POST ${t.ctx.env.BASE_URL}/claim with their credential and {"slug": "${d.slug}", "claim_token": "${d.claim_token}"}). The token works once; keep it private.`,
      ].join("\n"),
    );
    expect(Object.keys(r.structuredContent ?? {}).sort()).toEqual([
      "claim_token",
      "expires_at",
      "files",
      "live_version",
      "open_comments",
      "plan",
      "promoted",
      "report",
      "slug",
      "url",
      "version",
      "version_url",
    ]);
    const qr = r._meta?.["dev.dropsite/qr"] as { size: number; rows: string[] };
    expect(qr).toEqual(qrModules(d.url));
    expect(qr.rows).toHaveLength(qr.size);
    expect(qr.rows.every((row) => /^[01]+$/.test(row) && row.length === qr.size)).toBe(true);
    // Finder pattern in the top-left corner: a 7×7 dark ring.
    expect(qr.rows[0]!.slice(0, 7)).toBe("1111111");
    expect(qr.rows[1]!.slice(0, 7)).toBe("1000001");

    // Tools without the preview carry no QR code; neither does a failed deploy (only its error envelope).
    const limits = (await client.callTool({ name: "get_limits", arguments: {} })) as CallResult;
    expect(limits._meta?.["dev.dropsite/qr"]).toBeUndefined();
    const failed = (await client.callTool({ name: "deploy_html", arguments: { html: "" } })) as CallResult;
    expect(failed._meta?.["dev.dropsite/qr"]).toBeUndefined();
    expect(failed._meta?.["dev.dropsite/error"]).toMatchObject({ code: "invalid_request" });
  });
});
