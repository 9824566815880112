import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { strToU8, zipSync } from "fflate";
import type { Client } from "@modelcontextprotocol/client";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import * as onceRoute from "@/app/deploy/once/[token]/route";
import * as oncePreflightRoute from "@/app/deploy/once/[token]/preflight/route";
import * as deviceAuthorizeRoute from "@/app/device/authorize/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { serveGET } from "../support/serve";
import { decideDevice, findPendingDevice, type DeviceAuthorization } from "@/lib/device/flow";
import { listDrops } from "@/lib/drops/manage";
import { DEPLOY_GRANT_SECONDS } from "@/lib/plans";
import { suiteContext, apiRequest, clearOfMinuteEdge, dropRequest, TEST_BASE_URL } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import * as keyRoute from "@/app/keys/[id]/route";
import { countDrops } from "@/lib/db/queries";
import { deployGrants } from "@/lib/db/schema";

// The agent tools of issue 13 in-process through the real MCP client: the preflight/upload flow
// (preflight_files, upload_content, deploy by {sha256, size}), deploy_directory's one-time URL
// (POST /deploy/once/{token} and its preflight), and claiming anonymous drops in a device
// approval. Over HTTP against the built app: tests/e2e/mcp-agents.test.ts.

let ipN = 0;
const nextIp = () => `198.51.100.${++ipN}`;

const t = suiteContext({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "50" });

const connect = (credential?: string, ip = nextIp()): Promise<Client> => connectInProcess("modern", { credential, ip });

const text = resultText;
async function ok<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as CallResult;
  expect(r.isError ?? false, text(r)).toBe(false);
  return r.structuredContent as T;
}
async function fails(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as CallResult;
  expect(r.isError, text(r)).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return { ...(r._meta?.["dev.dropsite/error"] as { code: string; error: string; hint?: string }), text: text(r) };
}
const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");
const ref = (s: string) => ({ sha256: sha(s), size: Buffer.byteLength(s) });
const visit = async (slug: string, path = "/") => (await serveGET(dropRequest(slug, `/api/serve-drop${path}`))).text();

interface Preflight {
  missing: string[];
  uploads: { sha256: string; url: string }[];
  upload_token: string;
}
interface Deployed {
  slug: string;
  url: string;
  files: string[];
  claim_token?: string;
  name?: string;
  replaced?: boolean;
  expires_at: string | null;
}
interface Grant {
  url: string;
  preflight_url: string;
  expires_at: string;
  max_zip_bytes: number;
  commands: { zip: string; curl: string; npx: string };
}

const site = { "index.html": "<h1>home</h1>", "style.css": "h1 { color: teal }", "img/logo.svg": "<svg/>" };

describe("preflight_files, upload_content and deploys by reference", () => {
  it("an account sends each content once: a second deploy of the same site uploads nothing", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connect(apiKey);
    const manifest = Object.fromEntries(Object.entries(site).map(([p, c]) => [p, ref(c)]));
    const first = await ok<Preflight>(agent, "preflight_files", { files: manifest });
    expect(first.missing.sort()).toEqual(Object.values(site).map(sha).sort());
    for (const content of Object.values(site)) {
      expect(
        await ok(agent, "upload_content", {
          sha256: sha(content),
          content: { encoding: "base64", content: Buffer.from(content).toString("base64") },
        }),
      ).toEqual(ref(content));
    }
    const d = await ok<Deployed>(agent, "deploy_files", { files: manifest });
    expect(await visit(d.slug, "/style.css")).toBe(site["style.css"]);

    // Unchanged: nothing missing. One file changed: only it is missing, and the rest travel as references.
    expect((await ok<Preflight>(agent, "preflight_files", { files: manifest })).missing).toEqual([]);
    const changed = { ...manifest, "index.html": ref("<h1>home v2</h1>") };
    const second = await ok<Preflight>(agent, "preflight_files", { files: changed });
    expect(second.missing).toEqual([sha("<h1>home v2</h1>")]);
    await ok(agent, "upload_content", { sha256: sha("<h1>home v2</h1>"), content: "<h1>home v2</h1>" });
    const named = await ok<Deployed>(agent, "deploy_named", { name: "by-ref", files: changed });
    expect(await visit(named.slug)).toBe("<h1>home v2</h1>");
    const appended = await ok<{ files: string[] }>(agent, "append_files", {
      slug: d.slug,
      files: { "more.css": ref(site["style.css"]) },
    });
    expect(appended.files).toEqual(["more.css"]);
    expect(await visit(d.slug, "/more.css")).toBe(site["style.css"]);
    await agent.close();
  });

  it("anonymous: uploads belong to the preflight's upload_token, needed by upload_content and deploy_files", async () => {
    const agent = await connect();
    const files = { "index.html": ref("<p>anon by ref</p>") };
    const pre = await ok<Preflight>(agent, "preflight_files", { files });
    expect(pre.uploads[0]!.url).toBe(
      `${TEST_BASE_URL}/deploy/uploads/${pre.upload_token}/${sha("<p>anon by ref</p>")}`,
    );
    const noToken = await fails(agent, "upload_content", {
      sha256: sha("<p>anon by ref</p>"),
      content: "<p>anon by ref</p>",
    });
    expect(noToken).toMatchObject({ code: "invalid_request", hint: expect.stringContaining("upload_token") });
    await ok(agent, "upload_content", {
      sha256: sha("<p>anon by ref</p>"),
      content: "<p>anon by ref</p>",
      upload_token: pre.upload_token,
    });
    // Without the token the reference is not this caller's: refused, nothing created.
    const unusable = await fails(agent, "deploy_files", { files });
    expect(unusable).toMatchObject({ code: "invalid_request", hint: expect.stringContaining("preflight_files") });
    const d = await ok<Deployed>(agent, "deploy_files", { files, upload_token: pre.upload_token });
    expect(d.claim_token).toMatch(/^ct_/);
    expect(await visit(d.slug)).toBe("<p>anon by ref</p>");
    await agent.close();
  });

  it("a content whose bytes do not match its sha256 is refused with code and hint, and nothing is stored", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const agent = await connect(apiKey);
    const wrong = await fails(agent, "upload_content", { sha256: sha("the real bytes"), content: "other bytes" });
    expect(wrong.code).toBe("invalid_request");
    expect(wrong.text).toMatch(/^Hint: Send the file's exact bytes/m);
    expect(await fails(agent, "deploy_files", { files: { "index.html": ref("the real bytes") } })).toMatchObject({
      code: "invalid_request",
    });
    expect((await fails(agent, "upload_content", { sha256: "not-a-hash", content: "x" })).code).toBe("invalid_request");
    const expired = await fails(agent, "upload_content", {
      sha256: sha("x"),
      content: "x",
      upload_token: `ut_${"a".repeat(43)}`,
    });
    expect(expired).toMatchObject({ code: "not_found", hint: expect.stringContaining("preflight_files") });
    await agent.close();
  });
});

const zipOf = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([p, c]) => [p, strToU8(c)])));
const tokenOf = (url: string) => url.split("/").pop()!;
const once = (token: string, body: BodyInit, contentType: string, headers: Record<string, string> = {}) =>
  onceRoute.POST(
    apiRequest(`/deploy/once/${token}`, {
      method: "POST",
      body,
      headers: { "content-type": contentType, ...headers },
      ip: nextIp(),
    }),
    { params: Promise.resolve({ token }) },
  );

describe("deploy_directory: a one-time deploy URL", () => {
  it("returns the URL and ready commands; the URL deploys a zip once, anonymously; a second use is refused", async () => {
    const agent = await connect();
    const g = await ok<Grant>(agent, "deploy_directory", { dir: "my site" });
    expect(g.url).toMatch(new RegExp(`^${TEST_BASE_URL}/deploy/once/dg_[A-Za-z0-9_-]{43}$`));
    // Where the store takes direct uploads (the hosted stack's Blob), the zip goes by reference (tests/integration/zip-references.test.ts runs that script).
    if (t.ctx.storage.direct) expect(g.commands.curl).toContain(`--data "$ref" ${g.url}/preflight`);
    else
      expect(g.commands.curl).toBe(`curl --fail -H 'content-type: application/zip' --data-binary @site.zip ${g.url}`);
    expect(g.commands.npx).toBe(`npx dropsite deploy 'my site' --grant ${g.url}`);
    expect(g.commands.zip).toContain("(cd 'my site' && zip -qr - .");
    expect(Date.parse(g.expires_at) - t.ctx.now()).toBe(DEPLOY_GRANT_SECONDS * 1000);
    await agent.close();

    // Bad input leaves the URL usable.
    const bad = await once(tokenOf(g.url), new Uint8Array([1, 2, 3]), "application/zip");
    expect(bad.status).toBe(400);
    const res = await once(tokenOf(g.url), zipOf({ "index.html": "<p>zipped</p>" }), "application/zip");
    expect(res.status).toBe(200);
    const d = (await res.json()) as Deployed;
    expect(d.claim_token).toMatch(/^ct_/);
    expect(await visit(d.slug)).toBe("<p>zipped</p>");
    const again = await once(tokenOf(g.url), zipOf({ "index.html": "again" }), "application/zip");
    expect(again.status).toBe(410);
    expect(await again.json()).toMatchObject({
      code: "gone",
      error: expect.stringContaining("already used"),
      hint: expect.stringContaining("deploy_directory"),
    });
    const unknown = await once(`dg_${"x".repeat(43)}`, "<p>x</p>", "text/html");
    expect(unknown.status).toBe(404);
  });

  it("deploys as the account that asked, with its name and ttl; the grant's preflight uploads into that account", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connect(apiKey);
    const g = await ok<Grant>(agent, "deploy_directory", { name: "from-shell", ttl: 3600 });
    await agent.close();
    const token = tokenOf(g.url);
    const pre = await oncePreflightRoute.POST(
      apiRequest(`/deploy/once/${token}/preflight`, {
        method: "POST",
        body: JSON.stringify({ files: { "index.html": ref("<p>grant ref</p>") } }),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve({ token }) },
    );
    expect(pre.status).toBe(200);
    const p = (await pre.json()) as Preflight;
    const target = p.uploads[0]!;
    const put = await uploadPUT(apiRequest(new URL(target.url).pathname, { method: "PUT", body: "<p>grant ref</p>" }), {
      params: Promise.resolve({ token: p.upload_token, sha256: target.sha256 }),
    });
    expect(put.status).toBe(201);
    const res = await once(
      token,
      JSON.stringify({ files: { "index.html": ref("<p>grant ref</p>") } }),
      "application/json",
    );
    expect(res.status).toBe(200);
    const d = (await res.json()) as Deployed;
    expect(d).toMatchObject({ name: "from-shell", replaced: false });
    expect(d.claim_token).toBeUndefined();
    expect(Date.parse(d.expires_at!) - t.ctx.now()).toBe(3600 * 1000);
    expect((await listDrops(t.ctx, account, { limit: 10, offset: 0 })).drops.map((x) => x.slug)).toContain(d.slug);
    expect(await visit(d.slug)).toBe("<p>grant ref</p>");
    // Used: its preflight is refused too.
    const late = await oncePreflightRoute.POST(
      apiRequest(`/deploy/once/${token}/preflight`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve({ token }) },
    );
    expect(late.status).toBe(410);
  });

  it("found: a grant dies with the API key that asked for it: after its revocation the deploy and the preflight answer 401 auth_required and change nothing", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const agent = await connect(a.apiKey);
    const g = await ok<Grant>(agent, "deploy_directory", {});
    const spare = await ok<Grant>(agent, "deploy_directory", {});
    await agent.close();
    // A grant of a live key works (the spare one, to show the difference is the revocation).
    expect((await once(tokenOf(spare.url), "<p>live key</p>", "text/html")).status).toBe(200);
    const revoked = await keyRoute.DELETE(
      apiRequest(`/keys/${a.keyId}`, { method: "DELETE", headers: bearer(a.apiKey) }),
      { params: Promise.resolve({ id: a.keyId }) },
    );
    expect(revoked.status).toBe(200);
    const token = tokenOf(g.url);
    const before = {
      drops: await countDrops(t.ctx.db),
      grants: (await t.ctx.db.select().from(deployGrants)).sort((x, y) => (x.id < y.id ? -1 : 1)),
      stored: (await t.ctx.storage.list("")).sort(),
    };
    const res = await once(token, "<p>after revocation</p>", "text/html");
    expect({ status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({
      status: 401,
      code: "auth_required",
    });
    const pre = await oncePreflightRoute.POST(
      apiRequest(`/deploy/once/${token}/preflight`, {
        method: "POST",
        body: JSON.stringify({ files: { "index.html": ref("<p>x</p>") } }),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve({ token }) },
    );
    expect({ status: pre.status, code: ((await pre.json()) as { code: string }).code }).toEqual({
      status: 401,
      code: "auth_required",
    });
    expect({
      drops: await countDrops(t.ctx.db),
      grants: (await t.ctx.db.select().from(deployGrants)).sort((x, y) => (x.id < y.id ? -1 : 1)),
      stored: (await t.ctx.storage.list("")).sort(),
    }).toEqual(before);
  });

  it("checks the options when it is asked for: a name needs a paid plan, ttl its bounds; an expired URL is refused", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const agent = await connect(apiKey);
    expect(await fails(agent, "deploy_directory", { name: "mine" })).toMatchObject({ code: "subscription_required" });
    expect(await fails(agent, "deploy_directory", { ttl: 10 })).toMatchObject({ code: "invalid_ttl" });
    const g = await ok<Grant>(agent, "deploy_directory", {});
    expect(g.max_zip_bytes).toBe(25 * 1024 * 1024);
    await agent.close();
    t.clock.advance(DEPLOY_GRANT_SECONDS + 1);
    const res = await once(tokenOf(g.url), "<p>late</p>", "text/html");
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ code: "gone", error: expect.stringContaining("expired") });
  });
});

describe("deploy_directory: anonymous grants by content, and cleanup", () => {
  it("an anonymous grant's preflight scopes uploads to that preflight; the deploy by reference needs its upload token", async () => {
    const agent = await connect();
    const g = await ok<Grant>(agent, "deploy_directory", {});
    await agent.close();
    const token = tokenOf(g.url);
    const body = JSON.stringify({ files: { "index.html": ref("<p>anon grant</p>") } });
    const pre = await oncePreflightRoute.POST(
      apiRequest(`/deploy/once/${token}/preflight`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve({ token }) },
    );
    const p = (await pre.json()) as Preflight;
    const put = await uploadPUT(
      apiRequest(new URL(p.uploads[0]!.url).pathname, { method: "PUT", body: "<p>anon grant</p>" }),
      { params: Promise.resolve({ token: p.upload_token, sha256: p.uploads[0]!.sha256 }) },
    );
    expect(put.status).toBe(201);
    expect((await once(token, body, "application/json")).status).toBe(400); // no upload token: the reference is not this caller's
    const res = await once(token, body, "application/json", { "x-upload-token": p.upload_token });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Deployed;
    expect(d.claim_token).toMatch(/^ct_/);
    expect(await visit(d.slug)).toBe("<p>anon grant</p>");
  });

  it("issuing one-time URLs is rate limited per address like deploys", async () => {
    // 50 calls take a few seconds, many more on a loaded machine: start clear of a minute's end
    // (the hosted stack's sliding window could otherwise allow one more).
    await clearOfMinuteEdge(t, 30);
    const agent = await connect(undefined, nextIp());
    for (let i = 0; i < 50; i++) await ok<Grant>(agent, "deploy_directory", {});
    expect(await fails(agent, "deploy_directory", {})).toMatchObject({ code: "rate_limited" });
    await agent.close();
  });

  it("the cleanup job forgets grants that expired long ago: their URL is then unknown (404)", async () => {
    const agent = await connect();
    const g = await ok<Grant>(agent, "deploy_directory", {});
    await agent.close();
    t.clock.advance(2 * DEPLOY_GRANT_SECONDS + 1);
    const { runCleanup } = await import("@/lib/drops/lifecycle");
    await runCleanup(t.ctx);
    expect((await once(tokenOf(g.url), "<p>x</p>", "text/html")).status).toBe(404);
  });
});

describe("device_authorize with claims", () => {
  it("approving moves the agent's anonymous drops into the account; one already claimed is reported, not fatal", async () => {
    const agent = await connect();
    const a = await ok<Deployed>(agent, "deploy_html", { html: "<p>first</p>" });
    const b = await ok<Deployed>(agent, "deploy_html", { html: "<p>second</p>" });
    const { account } = await accountWithKey(t.ctx, "free");
    const { account: other } = await accountWithKey(t.ctx, "free");
    const started = await ok<DeviceAuthorization>(agent, "device_authorize", {
      claims: [
        { slug: a.slug, claim_token: a.claim_token },
        { slug: b.slug, claim_token: b.claim_token },
      ],
    });
    expect((await findPendingDevice(t.ctx, started.user_code))?.claims.sort()).toEqual([a.slug, b.slug].sort());
    // Someone else claims b first (e.g. with POST /claim): the approval reports it and still succeeds.
    const { claimDrop } = await import("@/lib/drops/manage");
    await claimDrop(t.ctx, other, { slug: b.slug, claim_token: b.claim_token });
    const decided = await decideDevice(t.ctx, account, started.user_code, true);
    expect(decided.claims).toEqual([
      { slug: a.slug, claimed: true, url: a.url },
      { slug: b.slug, claimed: false, code: "not_found", error: expect.any(String) },
    ]);
    t.clock.advance(10);
    const key = await ok<{ api_key: string; claims: unknown[] }>(agent, "device_token", {
      device_code: started.device_code,
    });
    expect(key.claims).toEqual(decided.claims);
    const authed = await connect(key.api_key);
    const list = await ok<{ drops: { slug: string }[] }>(authed, "list_drops", {});
    expect(list.drops.map((d) => d.slug)).toEqual([a.slug]);
    await authed.close();
    await agent.close();
  });

  it("over REST a JSON body carries the claims; a malformed claim is refused up front", async () => {
    const post = (body: string) =>
      deviceAuthorizeRoute.POST(
        apiRequest("/device/authorize", {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
          ip: nextIp(),
        }),
        { params: Promise.resolve({}) },
      );
    const bad = await post(JSON.stringify({ claims: [{ slug: "x", claim_token: "nope" }] }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_request" });
    const fine = await post(JSON.stringify({ claims: [] }));
    expect(fine.status).toBe(200);
    const empty = await post("");
    expect(empty.status).toBe(200);
  });
});
