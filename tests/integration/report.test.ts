import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { countDrops, countFiles } from "@/lib/db/queries";
import { accountScope, unusableReferences } from "@/lib/deploy/contents";
import { sha256Hex } from "@/lib/ids";
import { toolError } from "@/lib/mcp/tools";
import { openApiDocument } from "@/lib/openapi";
import { LARGE_FILE_WARNING_BYTES } from "@/lib/plans";
import {
  appendResponseSchema,
  deployResponseSchema,
  errorEnvelopeSchema,
  preflightResponseSchema,
  type DeployReport,
} from "@/lib/schemas";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { zip } from "../support/zips";

// The deploy report on POST /deploy, named redeploys, appends and deploys by reference, and the
// unusable hashes of a refused deploy by reference as a field of the envelope.

let ip = 0;
const noParams = { params: Promise.resolve({}) };

const t = suiteContext({}, { freshLimiter: true });

const enc = (s: string) => new TextEncoder().encode(s);
const refOf = (s: string) => ({ sha256: sha256Hex(enc(s)), size: enc(s).byteLength });
/** An sp_-shaped key assembled at run time (not a real key, and not a literal in this file). */
const plantedKey = () => `sp_${"Zq8-x".repeat(8)}K2_`;

function post(path: string, body: BodyInit, contentType: string, headers: Record<string, string> = {}) {
  return apiRequest(path, {
    method: "POST",
    body,
    headers: { "content-type": contentType, ...headers },
    ip: `203.0.113.${++ip % 250}`,
  });
}

async function deployJson(files: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  const res = await deployPOST(
    post(`/deploy${query}`, JSON.stringify({ files }), "application/json", headers),
    noParams,
  );
  return { status: res.status, text: await res.text() };
}

async function deployOk(files: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  const res = await deployJson(files, headers, query);
  expect(res.status, res.text).toBe(200);
  return { ...deployResponseSchema.parse(JSON.parse(res.text)), raw: res.text };
}

const warningKinds = (r: DeployReport | undefined) =>
  (r?.warnings ?? []).map((w) => (w.secret_kind ? `secret:${w.secret_kind}` : w.kind));

describe("POST /deploy answers with a report", () => {
  it("lists a planted missing image and a planted sp_ key, without the key anywhere in the body", async () => {
    const key = plantedKey();
    const d = await deployOk({
      "index.html": `<!doctype html><img src="img/missing.png"><img src="img/here.png"><script>const apiKey = "${key}";</script>`,
      "img/here.png": { encoding: "base64", content: "iVBORw0KGgo=" },
    });
    expect(d.report).toEqual({
      missing_references: [{ path: "index.html", ref: "img/missing.png" }],
      warnings: [
        {
          path: "index.html",
          kind: "secret",
          secret_kind: "dropsite_api_key",
          message: expect.stringContaining("Line 1"),
        },
      ],
      redirect_rules: 0,
      header_rules: 0,
    });
    expect(d.raw).not.toContain(key);
    expect(d.raw).not.toContain(key.slice(3, 15));
  });

  it("a clean site has a report with two empty lists", async () => {
    const d = await deployOk({
      "index.html":
        '<link rel="stylesheet" href="css/site.css"><a href="about">About</a><img srcset="a.png 1x, b.png 2x">',
      "css/site.css": "body{background:url(../a.png)}",
      "about.html": "",
      "a.png": "",
      "b.png": "",
    });
    expect(d.report).toEqual({ missing_references: [], warnings: [], redirect_rules: 0, header_rules: 0 });
  });

  it("no false positives: absolute URLs, anchors, data: URLs, mailto:, query strings of present files", async () => {
    const html =
      '<a href="https://example.com/x">x</a><script src="//cdn.example.com/lib.js"></script><a href="#top">top</a>' +
      '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><a href="mailto:me@example.com">mail</a><link rel=stylesheet href="s.css?v=2">';
    expect((await deployOk({ "index.html": html, "s.css": "" })).report).toEqual({
      missing_references: [],
      warnings: [],
      redirect_rules: 0,
      header_rules: 0,
    });
  });

  it("checks CSS url() and @import, srcset and module imports", async () => {
    const d = await deployOk({
      "index.html":
        '<img srcset="small.png 480w, large.png 1080w"><script type="module" src="js/app.js"></script><link rel="stylesheet" href="css/site.css">',
      "small.png": "",
      "css/site.css": '@import "theme.css"; h1 { background: url("../img/hero.jpg") }',
      "js/app.js": 'import { util } from "./util.js"; const lazy = () => import("./lazy.js");',
      "js/util.js": "export const util = 1;",
    });
    expect(d.report?.missing_references).toEqual([
      { path: "index.html", ref: "large.png" },
      { path: "css/site.css", ref: "theme.css" },
      { path: "css/site.css", ref: "../img/hero.jpg" },
      { path: "js/app.js", ref: "./lazy.js" },
    ]);
  });

  it("warns no_index, case_clash and .env files", async () => {
    const d = await deployOk({
      "page.html": "",
      "Logo.png": "",
      "logo.png": "",
      ".env": "DATABASE_URL=postgres://u:p@h/db",
    });
    expect(warningKinds(d.report).sort()).toEqual(["case_clash", "no_index", "secret:env_file"]);
    expect(d.raw).not.toContain("postgres://");
  });

  it("warns large_file for a file over the size in lib/plans.ts (a zip deploy)", async () => {
    const big = randomBytes(LARGE_FILE_WARNING_BYTES + 1);
    const res = await deployPOST(
      post("/deploy", zip({ "index.html": "<p>video</p>", "media/big.bin": big }) as BodyInit, "application/zip"),
      noParams,
    );
    const body = deployResponseSchema.parse(await res.json());
    expect(body.report?.warnings).toEqual([{ path: "media/big.bin", kind: "large_file", message: expect.any(String) }]);
  });

  it("a zip deploy's text files are checked, whether or not the flow keeps their bytes in memory", async () => {
    const key = plantedKey();
    const res = await deployPOST(
      post(
        "/deploy",
        zip({
          "site/index.html": '<img src="img/missing.png">',
          "site/js/app.js": `export const k = "${key}";`,
        }) as BodyInit,
        "application/zip",
      ),
      noParams,
    );
    const text = await res.text();
    const body = deployResponseSchema.parse(JSON.parse(text));
    expect(body.report?.missing_references).toEqual([{ path: "index.html", ref: "img/missing.png" }]);
    expect(warningKinds(body.report)).toEqual(["secret:dropsite_api_key"]);
    expect(text).not.toContain(key);
  });

  it("a zip deploy's report checks the entries while the deploy holds them: nothing is read back from storage", async () => {
    const key = plantedKey();
    const storage = t.ctx.storage;
    const get = storage.get.bind(storage);
    let reads = 0;
    storage.get = (...args: Parameters<typeof storage.get>) => {
      reads++;
      return get(...args);
    };
    try {
      const site: Record<string, string> = {
        "index.html": '<link href="css/site.css" rel="stylesheet"><script src="js/gone.js"></script>',
        "css/site.css": "body { background: url(img/bg.png) }",
        "notes.txt": `token ${key}`,
      };
      for (let i = 0; i < 90; i++)
        site[`pages/p${i}.html`] =
          `<a href="../index.html">home</a> <img src="img/p${i}.png"> ${randomBytes(1000 + i).toString("base64")}`;
      const res = await deployPOST(post("/deploy", zip(site) as BodyInit, "application/zip"), noParams);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const body = deployResponseSchema.parse(JSON.parse(text));
      expect(reads).toBe(0);
      expect(body.report?.missing_references).toEqual(
        expect.arrayContaining([
          { path: "index.html", ref: "js/gone.js" },
          { path: "css/site.css", ref: "img/bg.png" },
          { path: "pages/p89.html", ref: "img/p89.png" },
        ]),
      );
      expect(body.report?.missing_references).toHaveLength(92);
      expect(warningKinds(body.report)).toEqual(["secret:dropsite_api_key"]);
      expect(text).not.toContain(key);
    } finally {
      storage.get = get;
    }
  });

  it("a named redeploy carries the report of its new content", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    await deployOk({ "index.html": "<p>v1</p>" }, bearer(a.apiKey), "?name=report-named");
    const d = await deployOk({ "index.html": '<img src="gone.png">' }, bearer(a.apiKey), "?name=report-named");
    expect(d.replaced).toBe(true);
    expect(d.report?.missing_references).toEqual([{ path: "index.html", ref: "gone.png" }]);
  });
});

describe("POST /deploy/{slug} (append) answers with a report", () => {
  it("references are checked against the files the drop already holds", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const d = await deployOk(
      { "index.html": "<p>home</p>", "css/site.css": "body{}", "img/logo.png": "" },
      bearer(a.apiKey),
    );
    const res = await appendPOST(
      post(
        `/deploy/${d.slug}`,
        JSON.stringify({
          files: {
            "about.html":
              '<link rel="stylesheet" href="css/site.css"><img src="img/logo.png"><img src="img/team.png"><a href="/">home</a>',
          },
        }),
        "application/json",
        bearer(a.apiKey),
      ),
      { params: Promise.resolve({ slug: d.slug }) },
    );
    const body = appendResponseSchema.parse(await res.json());
    expect(res.status).toBe(200);
    // index.html is in the drop already: no no_index warning either.
    expect(body.report).toEqual({
      missing_references: [{ path: "about.html", ref: "img/team.png" }],
      warnings: [],
      redirect_rules: 0,
      header_rules: 0,
    });
  });

  it("an appended path that differs only by case from an existing one warns case_clash", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const d = await deployOk({ "index.html": "", "README.txt": "" }, bearer(a.apiKey));
    const res = await appendPOST(
      post(`/deploy/${d.slug}`, JSON.stringify({ files: { "readme.txt": "" } }), "application/json", bearer(a.apiKey)),
      { params: Promise.resolve({ slug: d.slug }) },
    );
    expect(warningKinds(appendResponseSchema.parse(await res.json()).report)).toEqual(["case_clash"]);
  });
});

describe("deploys by reference", () => {
  async function preflightAndUpload(files: Record<string, string>, headers: Record<string, string>) {
    const refs = Object.fromEntries(Object.entries(files).map(([p, s]) => [p, refOf(s)]));
    const res = await preflightPOST(
      post("/deploy/preflight", JSON.stringify({ files: refs }), "application/json", headers),
      noParams,
    );
    const pre = preflightResponseSchema.parse(await res.json());
    const bySha = new Map(Object.values(files).map((s) => [refOf(s).sha256, s]));
    for (const u of pre.uploads) {
      const { pathname } = new URL(u.url);
      const [, , , token, sha256] = pathname.split("/");
      const put = await uploadPUT(
        apiRequest(pathname, {
          method: "PUT",
          body: enc(bySha.get(u.sha256)!) as BodyInit,
          headers: { "content-type": "application/octet-stream" },
        }),
        {
          params: Promise.resolve({ token: token!, sha256: sha256! }),
        },
      );
      expect(put.status).toBe(201);
    }
    return refs;
  }

  it("text contents given by reference are read back from storage and checked", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const key = plantedKey();
    const refs = await preflightAndUpload(
      { "index.html": '<img src="img/missing.png">', "app.js": `const k = "${key}";` },
      bearer(a.apiKey),
    );
    const d = await deployOk(refs, bearer(a.apiKey));
    expect(d.report?.missing_references).toEqual([{ path: "index.html", ref: "img/missing.png" }]);
    expect(warningKinds(d.report)).toEqual(["secret:dropsite_api_key"]);
    expect(d.raw).not.toContain(key);
  });

  it("a second deploy of the same contents makes the same report without reading them back", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const key = plantedKey();
    // One style sheet at two paths: its reference resolves against each path on its own.
    const css = "body{background:url(../img/bg.png)}";
    const site = {
      "index.html": '<base href="/docs/"><link rel="stylesheet" href="../a/site.css"><img src="missing.png">',
      "a/site.css": css,
      "b/deep/site.css": css,
      "app.js": `import "./lib.js"; const k = "${key}";`,
      "img/bg.png": "png",
    };
    const refs = await preflightAndUpload(site, bearer(a.apiKey));
    const storage = t.ctx.storage;
    const get = storage.get.bind(storage);
    const read: string[] = [];
    storage.get = (ref, range) => {
      read.push(ref);
      return get(ref, range);
    };
    try {
      const first = await deployOk(refs, bearer(a.apiKey));
      expect(read).toHaveLength(4);
      read.length = 0;
      const second = await deployOk(refs, bearer(a.apiKey));
      expect(read).toEqual([]);
      expect(second.report).toEqual(first.report);
      expect(first.report).toEqual({
        missing_references: [
          { path: "index.html", ref: "missing.png" },
          { path: "b/deep/site.css", ref: "../img/bg.png" },
          { path: "app.js", ref: "./lib.js" },
        ],
        warnings: [
          {
            path: "app.js",
            kind: "secret",
            secret_kind: "dropsite_api_key",
            message: expect.stringContaining("Line 1"),
          },
        ],
        redirect_rules: 0,
        header_rules: 0,
      });
      // Another account's deploy of the same bytes reads them itself: nothing is shared across scopes.
      const other = await accountWithKey(t.ctx, "free");
      const otherRefs = await preflightAndUpload(site, bearer(other.apiKey));
      read.length = 0;
      expect((await deployOk(otherRefs, bearer(other.apiKey))).report).toEqual(first.report);
      expect(read).toHaveLength(4);
    } finally {
      storage.get = get;
    }
  });

  it("a reference never uploaded answers 400 with the hashes in `unusable`; nothing is created", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const ghost = "e".repeat(64);
    const [drops, files] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
    const res = await deployJson({ "index.html": "inline", "ghost.bin": { sha256: ghost, size: 3 } }, bearer(a.apiKey));
    const body = errorEnvelopeSchema.parse(JSON.parse(res.text));
    expect({ status: res.status, code: body.code, unusable: body.unusable }).toEqual({
      status: 400,
      code: "invalid_request",
      unusable: [ghost],
    });
    expect(body.hint).toContain("/deploy/preflight");
    expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, files]);
    expect(await t.ctx.storage.list(`c/${accountScope(a.account.id)}/`)).toEqual([]);
  });

  it("the MCP error text and envelope show the unusable hashes too", () => {
    const ghost = "d".repeat(64);
    const r = toolError(unusableReferences([ghost]));
    expect(r.content[0]!.text).toContain(`Unusable hashes: ${ghost}`);
    expect((r._meta?.["dev.dropsite/error"] as { unusable?: string[] }).unusable).toEqual([ghost]);
  });
});

describe("the API description", () => {
  it("/openapi.json describes the report on deploy and append responses and unusable on the envelope", () => {
    const doc = openApiDocument(t.ctx.env) as {
      components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown> }> }> };
    };
    const { DeployResponse, AppendResponse, ErrorEnvelope } = doc.components.schemas;
    for (const s of [DeployResponse!, AppendResponse!])
      expect(Object.keys(s.properties.report?.properties ?? {})).toEqual([
        "missing_references",
        "warnings",
        "left_off",
        "redirect_rules",
        "header_rules",
        "findings",
      ]);
    expect(ErrorEnvelope!.properties.unusable).toBeDefined();
  });
});
