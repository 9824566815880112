import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProgram, type RunResult } from "../support/run";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { strToU8, zipSync } from "fflate";
import { freePort, grantPlan, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { TOOL_NAMES } from "../support/tools";

// POST /mcp of the BUILT app, over HTTP, through every official TypeScript client an agent runs
// today: the SDK 1.x client (what most desktop and IDE assistants ship; it validates
// structuredContent against outputSchema even on errors) and the 2.x client pinned modern, in
// auto negotiation, and legacy. Every tool is called once to succeed and once to fail; each
// failure must reach the agent as an isError result whose text names the code and the hint.
// (Python's `mcp` package is not installable here: no PyPI.)

const ROOT = path.resolve(import.meta.dirname, "../..");
let app: RunningApp;
let oidc: OidcHarness;
let work: string;
let freeKey: string;
let proKey: string;

async function mintKey(port: number, sub: string, email: string): Promise<string> {
  const idToken = await oidc.mintIdToken({ sub, email });
  const minted = await app.request(`localhost:${port}`, "/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${idToken}` },
  });
  expect(minted.status, minted.text).toBe(201);
  return (minted.json() as { apiKey: string }).apiKey;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "dropsite-mcp-clients-"));
  const dataDir = path.join(work, "data");
  oidc = await startOidcProvider();
  const port = await freePort();
  const vars = { OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId, RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000" };
  app = await startApp(vars, { dataDir, port });
  freeKey = await mintKey(port, "mcp-free", "free@example.test");
  proKey = await mintKey(port, "mcp-pro", "pro@example.test");
  app = await grantPlan(app, "pro@example.test", "pro");
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await oidc?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Result {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a test needs of a connected client, whichever SDK it comes from. */
interface Session {
  listTools(): Promise<{ name: string }[]>;
  call(name: string, args: Record<string, unknown>): Promise<Result>;
  close(): Promise<void>;
  /** resources/list's URIs and the text of resources/read of the first one. */
  resources(): Promise<{ uris: string[]; mimeType?: string; text: string }>;
}

type Flavour = "sdk-1.x" | "client-2.x modern" | "client-2.x auto" | "client-2.x legacy";

async function connect(flavour: Flavour, key?: string): Promise<Session> {
  const url = new URL(`${app.baseUrl}/mcp`);
  const requestInit = key ? { headers: { authorization: `Bearer ${key}` } } : undefined;
  if (flavour === "sdk-1.x") {
    const client = new Client1({ name: "dropsite-e2e", version: "1.0.0" });
    await client.connect(new Transport1(url, { requestInit }));
    return {
      listTools: async () => (await client.listTools()).tools,
      // callTool, not request(): it is the path that validates structuredContent against outputSchema.
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as Result,
      close: () => client.close(),
      resources: async () => {
        const uris = (await client.listResources()).resources.map((r) => r.uri);
        const c = (await client.readResource({ uri: uris[0]! })).contents[0] as { mimeType?: string; text: string };
        return { uris, mimeType: c.mimeType, text: c.text };
      },
    };
  }
  const mode =
    flavour === "client-2.x modern"
      ? { pin: "2026-07-28" }
      : flavour === "client-2.x auto"
        ? ("auto" as const)
        : ("legacy" as const);
  const client = new Client2({ name: "dropsite-e2e", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new Transport2(url, { requestInit }));
  expect(client.getProtocolEra()).toBe(flavour === "client-2.x legacy" ? "legacy" : "modern");
  return {
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as Result,
    close: () => client.close(),
    resources: async () => {
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      const c = (await client.readResource({ uri: uris[0]! })).contents[0] as { mimeType?: string; text: string };
      return { uris, mimeType: c.mimeType, text: c.text };
    },
  };
}

const text = (r: Result) => r.content.map((c) => c.text ?? "").join("\n");

/** Asserts what an agent reads from a failed call: code, hint (when given) and no structuredContent. */
function expectFailure(r: Result, code: string, hint: RegExp | null) {
  expect(r.isError, text(r)).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  expect(text(r)).toMatch(new RegExp(`^Error \\(${code}\\): .+`, "m"));
  if (hint) expect(text(r)).toMatch(new RegExp(`^Hint: .*${hint.source}`, "m"));
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const ref = (s: string) => ({ sha256: sha(s), size: Buffer.byteLength(s) });

const FLAVOURS: Flavour[] = ["sdk-1.x", "client-2.x modern", "client-2.x auto", "client-2.x legacy"];

describe.each(FLAVOURS)("%s against the built app", (flavour) => {
  it("lists the tools", async () => {
    const s = await connect(flavour);
    const names = (await s.listTools()).map((t) => t.name).sort();
    expect(names).toEqual(TOOL_NAMES);
    await s.close();
  });

  it("the deploy preview: listed and read from the built app (the App bundle inlined), linked from deploy_html", async () => {
    const s = await connect(flavour);
    const r = await s.resources();
    expect(r.uris).toEqual(["ui://dropsite/deploy-preview.html"]);
    expect(r.mimeType).toBe("text/html;profile=mcp-app");
    expect(r.text).toContain("const ExtApps={");
    expect(r.text).toContain('<iframe id="frame"');
    const tools = (await s.listTools()) as { name: string; _meta?: { ui?: { resourceUri?: string } } }[];
    expect(tools.find((x) => x.name === "deploy_html")?._meta?.ui?.resourceUri).toBe(
      "ui://dropsite/deploy-preview.html",
    );
    await s.close();
  });

  it("idempotency_key: a retry replays the first deploy; other arguments conflict; a bad key is an isError result", async () => {
    const s = await connect(flavour, proKey);
    const key = `e2e-${flavour}`;
    const first = await s.call("deploy_html", { html: `<p>${flavour} once</p>`, idempotency_key: key });
    expect(first.isError ?? false, text(first)).toBe(false);
    const again = await s.call("deploy_html", { html: `<p>${flavour} once</p>`, idempotency_key: key });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expectFailure(
      await s.call("deploy_html", { html: "<p>other</p>", idempotency_key: key }),
      "conflict",
      /idempotency_key/,
    );
    expectFailure(
      await s.call("delete_drop", { slug: "x", idempotency_key: "k".repeat(256) }),
      "invalid_request",
      /idempotency_key/,
    );
    await s.close();
  });

  it("get_limits: succeeds; unknown arguments fail with invalid_request", async () => {
    const s = await connect(flavour);
    const ok = await s.call("get_limits", {});
    expect(ok.isError ?? false).toBe(false);
    expect(ok.structuredContent).toMatchObject({ plan: "anonymous" });
    expectFailure(await s.call("get_limits", { verbose: true }), "invalid_request", /inputSchema/);
    await s.close();
  });

  it("deploy_html: publishes; a bad ttl and a free plan's name fail with their codes and hints", async () => {
    const anon = await connect(flavour);
    const ok = await anon.call("deploy_html", { html: `<h1>${flavour}</h1>` });
    expect(ok.isError ?? false, text(ok)).toBe(false);
    const url = (ok.structuredContent as { url: string }).url;
    expect(text(ok)).toContain(url);
    const slug = (ok.structuredContent as { slug: string }).slug;
    expect((await app.request(`${slug}.${app.serveDomain}`, "/")).text).toBe(`<h1>${flavour}</h1>`);
    expectFailure(await anon.call("deploy_html", { html: "<p>x</p>", ttl: 10 }), "invalid_ttl", /ttl/);
    await anon.close();

    const free = await connect(flavour, freeKey);
    expectFailure(
      await free.call("deploy_html", { html: "<p>x</p>", name: "mine" }),
      "invalid_request",
      /deploy_named/,
    );
    await free.close();
  });

  it("deploy_named: creates, then replaces at the same URL; a free plan is refused with upgrade advice", async () => {
    const free = await connect(flavour, freeKey);
    const gated = await free.call("deploy_named", { name: "mine", files: { "index.html": "x" } });
    expectFailure(gated, "subscription_required", /pro or team/);
    expect(text(gated)).toMatch(/^Upgrade: http/m);
    await free.close();

    const s = await connect(flavour, proKey);
    const name = flavour.replace(/[^a-z0-9]+/g, "-");
    const first = await s.call("deploy_named", { name, files: { "index.html": "v1" } });
    expect(first.isError ?? false, text(first)).toBe(false);
    const second = await s.call("deploy_named", { name, files: { "index.html": "v2" } });
    expect(second.structuredContent).toMatchObject({
      slug: (first.structuredContent as { slug: string }).slug,
      replaced: true,
    });
    expect(
      (await app.request(`${(first.structuredContent as { slug: string }).slug}.${app.serveDomain}`, "/")).text,
    ).toBe("v2");
    await s.close();
  });

  it("append_files and get_drop: add files and show them with sizes; a taken path and an unknown slug fail", async () => {
    const s = await connect(flavour, proKey);
    const made = await s.call("deploy_files", { files: { "index.html": "<p>home</p>" } });
    const slug = (made.structuredContent as { slug: string }).slug;
    const added = await s.call("append_files", { slug, files: { "about.html": "<p>about</p>" } });
    expect(added.isError ?? false, text(added)).toBe(false);
    expect(added.structuredContent).toMatchObject({ files: ["about.html"], total_files: 2 });
    expectFailure(await s.call("append_files", { slug, files: { "about.html": "again" } }), "invalid_request", /./);
    const got = await s.call("get_drop", { slug });
    expect(got.isError ?? false, text(got)).toBe(false);
    expect((got.structuredContent as { files: { path: string; size: number }[] }).files).toEqual([
      expect.objectContaining({ path: "about.html", size: 12 }),
      expect.objectContaining({ path: "index.html", size: 11 }),
    ]);
    expectFailure(await s.call("get_drop", { slug: "no-such-drop" }), "not_found", /list_drops/);
    await s.close();
  });

  it("deploy_files: publishes text and base64; bad base64 and too many files fail", async () => {
    const s = await connect(flavour, freeKey);
    const ok = await s.call("deploy_files", {
      files: {
        "index.html": "<p>files</p>",
        "a.bin": { encoding: "base64", content: Buffer.from([0, 1, 2]).toString("base64") },
      },
    });
    expect(ok.isError ?? false, text(ok)).toBe(false);
    expect((ok.structuredContent as { files: string[] }).files.sort()).toEqual(["a.bin", "index.html"]);
    expectFailure(
      await s.call("deploy_files", { files: { "a.bin": { encoding: "base64", content: "not base64!" } } }),
      "invalid_request",
      /base64/,
    );
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, "x"]));
    expectFailure(await s.call("deploy_files", { files: many }), "file_cap_exceeded", /./);
    await s.close();
  });

  it("list_drops and delete_drop: act for the key's account; without a key, or on an unknown slug, fail", async () => {
    const anon = await connect(flavour);
    expectFailure(await anon.call("list_drops", {}), "auth_required", /Bearer/);
    expectFailure(await anon.call("delete_drop", { slug: "whatever" }), "auth_required", /Bearer/);
    await anon.close();

    const s = await connect(flavour, proKey);
    const made = await s.call("deploy_html", { html: "<p>to delete</p>" });
    const slug = (made.structuredContent as { slug: string }).slug;
    const list = await s.call("list_drops", { limit: 500 });
    expect(list.isError ?? false, text(list)).toBe(false);
    expect((list.structuredContent as { drops: { slug: string }[] }).drops.map((d) => d.slug)).toContain(slug);
    const del = await s.call("delete_drop", { slug });
    expect(del.isError ?? false, text(del)).toBe(false);
    expect(del.structuredContent).toEqual({ deleted: slug });
    expectFailure(await s.call("delete_drop", { slug }), "not_found", /list_drops/);
    await s.close();
  });

  it("preflight_files, upload_content, deploy by reference: the second deploy uploads 0 of N; a wrong hash fails with code and hint", async () => {
    const s = await connect(flavour, proKey);
    const site = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`page${i}.html`, `<p>${flavour} page ${i}</p>`]),
    );
    const files = Object.fromEntries(Object.entries(site).map(([p, c]) => [p, ref(c)]));
    const first = await s.call("preflight_files", { files });
    expect(first.isError ?? false, text(first)).toBe(false);
    const missing = (first.structuredContent as { missing: string[] }).missing;
    expect(missing).toHaveLength(5);
    for (const content of Object.values(site)) {
      const up = await s.call("upload_content", { sha256: sha(content), content });
      expect(up.isError ?? false, text(up)).toBe(false);
    }
    const d1 = await s.call("deploy_files", { files });
    expect(d1.isError ?? false, text(d1)).toBe(false);
    const second = await s.call("preflight_files", { files });
    expect((second.structuredContent as { missing: string[] }).missing).toEqual([]);
    expect(text(second)).toMatch(/^0 contents missing of 5 files/m);
    const d2 = await s.call("deploy_files", { files });
    const slug = (d2.structuredContent as { slug: string }).slug;
    expect((await app.request(`${slug}.${app.serveDomain}`, "/page3.html")).text).toBe(site["page3.html"]);
    expectFailure(
      await s.call("upload_content", { sha256: sha("the bytes it claims"), content: "other bytes" }),
      "invalid_request",
      /exact bytes/,
    );
    await s.close();
  });

  it("deploy_directory: returns a one-time URL and commands; a free plan's name is refused", async () => {
    const s = await connect(flavour);
    const g = await s.call("deploy_directory", { dir: "site" });
    expect(g.isError ?? false, text(g)).toBe(false);
    const url = (g.structuredContent as { url: string }).url;
    expect(text(g)).toContain(`npx dropsite deploy site --grant ${url}`);
    await s.close();
    const free = await connect(flavour, freeKey);
    expectFailure(await free.call("deploy_directory", { name: "mine" }), "subscription_required", /pro or team/);
    await free.close();
  });

  it("device_authorize starts a request; device_token answers authorization_pending until approval, expired_token for an unknown code", async () => {
    const s = await connect(flavour);
    const started = await s.call("device_authorize", {});
    expect(started.isError ?? false, text(started)).toBe(false);
    const a = started.structuredContent as { device_code: string; verification_uri_complete: string };
    expect(text(started)).toContain(a.verification_uri_complete);
    expectFailure(await s.call("device_token", { device_code: a.device_code }), "authorization_pending", /approve/);
    expectFailure(
      await s.call("device_token", { device_code: "not-a-real-code" }),
      "expired_token",
      /device_authorize/,
    );
    await s.close();
  });
});

interface Grant {
  url: string;
  commands: { zip: string; curl: string; npx: string };
}

/** Runs a command line in a shell, as an agent would paste it. */
function shell(command: string, cwd: string): Promise<RunResult> {
  return runProgram("sh", ["-c", command], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: work,
      NODE_ENV: "production",
      XDG_CONFIG_HOME: path.join(work, "config-none"),
    },
  });
}

async function grantFor(key: string | undefined, args: Record<string, unknown>): Promise<Grant> {
  const s = await connect("sdk-1.x", key);
  const r = await s.call("deploy_directory", args);
  expect(r.isError ?? false, text(r)).toBe(false);
  await s.close();
  return r.structuredContent as unknown as Grant;
}

describe("deploy_directory's commands, run in a shell against the built app", () => {
  it("the curl command deploys the zip once (anonymously); running it again is refused", async () => {
    const dir = path.join(work, "curl-run");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "site.zip"),
      zipSync({ "index.html": strToU8("<h1>sent by curl</h1>"), "css/site.css": strToU8("h1 { color: teal }") }),
    );
    const g = await grantFor(undefined, { dir: "." });
    const first = await shell(g.commands.curl, dir);
    expect(first.code, first.stderr).toBe(0);
    const d = JSON.parse(first.stdout) as { slug: string; claim_token?: string };
    expect(d.claim_token).toMatch(/^ct_/);
    expect((await app.request(`${d.slug}.${app.serveDomain}`, "/")).text).toBe("<h1>sent by curl</h1>");
    const second = await shell(g.commands.curl, dir);
    expect(second.code).toBe(22); // curl --fail: HTTP error
    const refused = await shell(g.commands.curl.replace("curl --fail", "curl -s"), dir);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      code: "gone",
      hint: expect.stringContaining("deploy_directory"),
    });
  });

  it("the npx command (the built CLI) deploys the folder as the pro account, under the name asked for; a second run is refused", async () => {
    const dir = path.join(work, "cli-site");
    await mkdir(path.join(dir, "img"), { recursive: true });
    await writeFile(path.join(dir, "index.html"), "<h1>sent by the CLI</h1>");
    await writeFile(path.join(dir, "img/dot.svg"), "<svg/>");
    await writeFile(path.join(dir, ".env"), "SECRET=1");
    const g = await grantFor(proKey, { dir: "cli-site", name: "from-cli" });
    const cli = `${process.execPath} ${path.join(ROOT, "cli/dist/dropsite.mjs")}`;
    const command = g.commands.npx.replace(/^npx dropsite /, `${cli} `);
    const first = await shell(`${command} --json`, work);
    expect(first.code, first.stderr).toBe(0);
    const d = JSON.parse(first.stdout) as { slug: string; name: string; files: string[]; claim_token?: string };
    expect(d).toMatchObject({ name: "from-cli" });
    expect(d.files.sort()).toEqual(["img/dot.svg", "index.html"]);
    expect(d.claim_token).toBeUndefined();
    // A first deploy: nothing existed, so nothing is said about unchanged files.
    expect(first.stderr).not.toMatch(/unchanged/);
    expect((await app.request(`${d.slug}.${app.serveDomain}`, "/")).text).toBe("<h1>sent by the CLI</h1>");
    const list = await connect("client-2.x modern", proKey);
    const drops = (await list.call("list_drops", { limit: 500 })).structuredContent as {
      drops: { slug: string; name: string | null }[];
    };
    expect(drops.drops.find((x) => x.slug === d.slug)?.name).toBe("from-cli");
    await list.close();
    const second = await shell(command, work);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already used\. \(gone, HTTP 410\)/);
  });
});
