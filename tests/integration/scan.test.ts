import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { POST as oncePOST } from "@/app/deploy/once/[token]/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { anonymousCaller } from "@/lib/auth/caller";
import { listAudit } from "@/lib/db/audit";
import { countDrops, countFiles, findDropBySlug } from "@/lib/db/queries";
import { findingsOf } from "@/lib/db/scan";
import { contents } from "@/lib/db/schema";
import { issueDeployGrant } from "@/lib/deploy/grants";
import { sha256Hex } from "@/lib/ids";
import { SCAN_FILE_BYTES } from "@/lib/plans";
import { deployResponseSchema, preflightResponseSchema, type DeployResponse } from "@/lib/schemas";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, freshLimiter, makeTestContext, TEST_SERVE_DOMAIN, type TestContext } from "../support/context";
import { connectInProcess, type CallResult } from "../support/mcp";
import { evasions } from "../support/scan-evasions";
import { benignLookAlikes, truePositives } from "../support/scan-fixtures";
import { startWebRiskStandin, type WebRiskStandin } from "../support/web-risk-standin";
import { zip } from "../support/zips";
import { SEVERE_RULES, type ScanRule } from "@/lib/scan/findings";

// The deploy scan on every path that writes files: an anonymous deploy with a severe finding is
// refused (422 content_refused, its findings, one audit entry) and stores nothing, neither rows
// nor bytes; any other finding, and every finding of an account's deploy, goes through, flagged
// for review (scan_findings, audit) and shown on the report.

const noParams = { params: Promise.resolve({}) };
let ipN = 0;
const nextIp = () => `198.51.100.${++ipN % 250}`;

let t: TestContext;
let webRisk: WebRiskStandin;

beforeAll(async () => {
  webRisk = await startWebRiskStandin();
  t = await makeTestContext({ WEB_RISK_API_KEY: webRisk.key, WEB_RISK_API_URL: webRisk.url });
});
afterAll(async () => {
  await t?.close();
  await webRisk?.close();
});
beforeEach(async () => {
  await freshLimiter(t);
  t.ctx.env.SCAN = "on";
  webRisk.mode = "ok";
});

const fixture = (name: string) => [...truePositives, ...benignLookAlikes].find((f) => f.name === name)!;
const asText = (c: string | Uint8Array) => (typeof c === "string" ? c : Buffer.from(c).toString("latin1"));
const jsonValue = (c: string | Uint8Array) =>
  typeof c === "string" ? c : { encoding: "base64", content: Buffer.from(c).toString("base64") };

const PHISH = fixture("a sign-in form posting the password to another host");
const TELEGRAM = fixture("a Telegram bot as the collector, the URL built in a script");
const EXE = fixture("a Windows executable under an innocent name");
const BRAND = fixture("a password page under a brand's name");
const PACKED = fixture("eval over atob");

function deployJson(files: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  return deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
      ip: nextIp(),
    }),
    noParams,
  );
}

/** Everything a deploy could have left behind: drop and file rows, content rows, stored objects. */
async function stored() {
  const [rows] = await t.ctx.db.select({ n: count() }).from(contents);
  return {
    drops: await countDrops(t.ctx.db),
    files: await countFiles(t.ctx.db),
    contents: rows?.n ?? 0,
    objects: (await t.ctx.storage.list("c/")).sort(),
  };
}

async function refusal(res: Response) {
  const body = (await res.json()) as {
    code: string;
    error: string;
    findings?: { rule: string; file: string; line: number; excerpt: string }[];
  };
  expect({ status: res.status, code: body.code }).toEqual({ status: 422, code: "content_refused" });
  return body;
}

async function refusedEntries() {
  return (await listAudit(t.ctx.db, { limit: 100, offset: 0, actor: "scan" })).entries.filter(
    (e) => e.action === "scan.refused",
  );
}

async function ok(res: Response): Promise<DeployResponse> {
  const body: unknown = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status: 200 });
  return deployResponseSchema.parse(body);
}

describe("REST JSON deploys", () => {
  it("an anonymous deploy with a severe finding is refused with its findings, audited, and stores nothing", async () => {
    const before = await stored();
    const audits = (await refusedEntries()).length;
    const body = await refusal(
      await deployJson({ "index.html": PHISH.content, "style.css": "body{}", "setup.exe": "x" }),
    );
    expect(body.findings).toEqual([
      {
        rule: "credential-form-offsite",
        file: "index.html",
        line: PHISH.line,
        excerpt: '<form method="post" action="https://secure-login-verify.example.net/next.php">',
      },
      { rule: "executable", file: "setup.exe", line: 0, excerpt: "a .exe file" },
    ]);
    expect(body.error).toContain("credential-form-offsite");
    expect(await stored()).toEqual(before);
    const entries = await refusedEntries();
    expect(entries).toHaveLength(audits + 1);
    expect(entries[0]).toMatchObject({ actor: "scan", action: "scan.refused" });
    expect(entries[0]!.target).toMatch(/^address:[0-9a-f]{64}$/);
    // The address is kept only as a keyed hash.
    expect(JSON.stringify(entries[0])).not.toContain("198.51.100.");
  });

  it("an anonymous deploy with only a flag-level finding goes through, on the review queue and the report", async () => {
    const d = await ok(await deployJson({ "account/index.html": BRAND.content, "p.js": PACKED.content }));
    expect(d.report?.findings?.map((f) => [f.rule, f.file, f.line])).toEqual([
      ["brand-lure", "account/index.html", BRAND.line],
      ["obfuscated-script", "p.js", PACKED.line],
    ]);
    const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
    const rows = await findingsOf(t.ctx.db, drop.id);
    expect(rows.map((r) => [r.rule, r.file, r.line, r.action, r.version])).toEqual([
      ["brand-lure", "account/index.html", BRAND.line, "flagged", 1],
      ["obfuscated-script", "p.js", PACKED.line, "flagged", 1],
    ]);
    const flagged = (await listAudit(t.ctx.db, { limit: 10, offset: 0, target: `drop:${d.slug}` })).entries;
    expect(flagged.map((e) => [e.actor, e.action])).toEqual([["scan", "scan.flagged"]]);
  });

  it("an account's deploy with a severe finding goes through, flagged", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const d = await ok(await deployJson({ "index.html": PHISH.content }, bearer(apiKey)));
    expect(d.report?.findings?.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
    const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
    expect((await findingsOf(t.ctx.db, drop.id)).map((r) => r.action)).toEqual(["flagged"]);
  });

  it("clean files and the benign look-alikes have no findings and no report.findings", async () => {
    // (The drop's own host is its slug's here, not the unit tests' own-drop.drops.test.)
    const files = Object.fromEntries(
      benignLookAlikes
        .filter((f) => !asText(f.content).includes("own-drop.drops.test"))
        .map((f, i) => [`b${i}/${f.path}`, jsonValue(f.content)]),
    );
    const d = await ok(await deployJson(files));
    expect(d.report?.findings).toBeUndefined();
    const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
    expect(await findingsOf(t.ctx.db, drop.id)).toEqual([]);
  });

  it("a named redeploy (replace) is scanned and flagged under its new version", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    await ok(await deployJson({ "index.html": "<h1>v1</h1>" }, bearer(apiKey), "?name=scanned"));
    const d = await ok(await deployJson({ "index.html": PHISH.content }, bearer(apiKey), "?name=scanned"));
    expect(d.version).toBe(2);
    const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
    expect((await findingsOf(t.ctx.db, drop.id)).map((r) => [r.rule, r.version])).toEqual([
      ["credential-form-offsite", 2],
    ]);
  });

  it("a password form posting to the drop's own host (absolute URL) is not flagged; another drop's host is", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const first = await ok(await deployJson({ "index.html": "<h1>v1</h1>" }, bearer(apiKey), "?name=own-host"));
    const form = (host: string) =>
      `<form action="http://${host}.${TEST_SERVE_DOMAIN}/login"><input type="password" name="p"></form>`;
    const own = await ok(await deployJson({ "index.html": form(first.slug) }, bearer(apiKey), "?name=own-host"));
    expect(own.report?.findings).toBeUndefined();
    const other = await ok(await deployJson({ "index.html": form("someone-else") }, bearer(apiKey), "?name=own-host"));
    expect(other.report?.findings?.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
  });

  it("SCAN=report never refuses; SCAN=off does not scan", async () => {
    t.ctx.env.SCAN = "report";
    const reported = await ok(await deployJson({ "index.html": PHISH.content }));
    expect(reported.report?.findings?.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
    t.ctx.env.SCAN = "off";
    webRisk.lookups.length = 0;
    const off = await ok(await deployJson({ "index.html": PHISH.content }));
    expect(off.report?.findings).toBeUndefined();
    const drop = (await findDropBySlug(t.ctx.db, off.slug))!;
    expect(await findingsOf(t.ctx.db, drop.id)).toEqual([]);
    expect(webRisk.lookups).toEqual([]);
  });
});

describe("what a browser would run (issue 54): evasions of refused kits, deployed anonymously", () => {
  it.each(evasions.map((f) => [f.name, f] as const))("%s", async (_, f) => {
    const before = await stored();
    const res = await deployJson({ [f.path]: f.content, "style.css": "body{}" });
    if (SEVERE_RULES.has(f.rule as ScanRule)) {
      // Refused as the original kit is: 422, its finding, nothing stored.
      expect((await refusal(res)).findings?.map((x) => [x.rule, x.file, x.line])).toEqual([[f.rule, f.path, f.line]]);
      expect(await stored()).toEqual(before);
    } else {
      // The original kit (eval over atob) is flagged, not refused: so is the evasion.
      const d = await ok(res);
      expect(d.report?.findings?.map((x) => [x.rule, x.file, x.line])).toEqual([[f.rule, f.path, f.line]]);
      const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
      expect((await findingsOf(t.ctx.db, drop.id)).map((r) => [r.rule, r.action])).toEqual([[f.rule, "flagged"]]);
    }
  });

  it("every evasion's benign look-alike deploys anonymously, with no findings", async () => {
    const files = Object.fromEntries(
      evasions
        .map((f) => f.lookAlike)
        .filter((f) => !asText(f.content).includes("own-drop.drops.test"))
        .map((f, i) => [`e${i}/${f.path}`, f.content]),
    );
    expect(Object.keys(files).length).toBe(evasions.length - 1);
    const d = await ok(await deployJson(files));
    expect(d.report?.findings).toBeUndefined();
  });

  it("a password form posting to the drop's own host written with a trailing dot deploys", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const first = await ok(await deployJson({ "index.html": "<h1>v1</h1>" }, bearer(apiKey), "?name=own-dot"));
    const [domain, port] = TEST_SERVE_DOMAIN.split(":");
    const form = `<form action="http://${first.slug}.${domain}.:${port}/login"><input type="password" name="p"></form>`;
    const own = await ok(await deployJson({ "index.html": form }, bearer(apiKey), "?name=own-dot"));
    expect(own.report?.findings).toBeUndefined();
  });
});

describe("zips", () => {
  it("a posted zip with an executable inside is refused, and what it stored is purged", async () => {
    const before = await stored();
    const body = await refusal(
      await deployPOST(
        apiRequest("/deploy", {
          method: "POST",
          body: zip({
            "index.html": "<h1>Invoice</h1>",
            "invoice.pdf": EXE.content,
            "big.bin": randomBytes(4096),
          }) as BodyInit,
          headers: { "content-type": "application/zip" },
          ip: nextIp(),
        }),
        noParams,
      ),
    );
    expect(body.findings).toEqual([
      { rule: "executable", file: "invoice.pdf", line: 0, excerpt: "starts as a Windows executable (MZ header)" },
    ]);
    expect(await stored()).toEqual(before);
  });
});

describe("deploys by reference (preflight, upload, deploy)", () => {
  async function preflightAndUpload(files: Record<string, string | Uint8Array>, headers: Record<string, string> = {}) {
    const enc = (c: string | Uint8Array) => (typeof c === "string" ? new TextEncoder().encode(c) : c);
    const refs = Object.fromEntries(
      Object.entries(files).map(([p, c]) => [p, { sha256: sha256Hex(enc(c)), size: enc(c).byteLength }]),
    );
    const res = await preflightPOST(
      apiRequest("/deploy/preflight", {
        method: "POST",
        body: JSON.stringify({ files: refs }),
        headers: { "content-type": "application/json", ...headers },
        ip: nextIp(),
      }),
      noParams,
    );
    expect(res.status).toBe(200);
    const p = preflightResponseSchema.parse(await res.json());
    for (const u of p.uploads) {
      const [, , , token, sha] = new URL(u.url).pathname.split("/");
      const bytes = enc(Object.values(files).find((c) => sha256Hex(enc(c)) === sha)!);
      const put = await uploadPUT(
        apiRequest(new URL(u.url).pathname, {
          method: "PUT",
          body: bytes as BodyInit,
          headers: { "content-type": "application/octet-stream" },
        }),
        { params: Promise.resolve({ token: token!, sha256: sha! }) },
      );
      expect(put.status).toBeLessThan(300);
    }
    return { refs, token: p.upload_token };
  }

  it("an anonymous deploy of uploaded contents is refused; the uploads are purged with it", async () => {
    const before = await stored();
    const { refs, token } = await preflightAndUpload({ "index.html": PHISH.content, "app.js": TELEGRAM.content });
    expect((await stored()).objects.length).toBeGreaterThan(before.objects.length);
    const body = await refusal(await deployJson(refs, { "x-upload-token": token }));
    expect(body.findings?.map((f) => [f.rule, f.file, f.line])).toEqual([
      ["credential-form-offsite", "index.html", PHISH.line],
      ["exfiltration-endpoint", "app.js", TELEGRAM.line],
    ]);
    expect(await stored()).toEqual(before);
  });

  it("an anonymous zip by reference is refused; the archive and its entries are purged", async () => {
    const before = await stored();
    const archive = zip({ "index.html": PHISH.content, "notes.txt": "hello" });
    const ref = { sha256: sha256Hex(archive), size: archive.byteLength };
    const res = await preflightPOST(
      apiRequest("/deploy/preflight", {
        method: "POST",
        body: JSON.stringify({ zip: ref }),
        headers: { "content-type": "application/json" },
        ip: nextIp(),
      }),
      noParams,
    );
    expect(res.status).toBe(200);
    const p = preflightResponseSchema.parse(await res.json());
    for (const u of p.uploads) {
      const [, , , token, sha] = new URL(u.url).pathname.split("/");
      const put = await uploadPUT(
        apiRequest(new URL(u.url).pathname, {
          method: "PUT",
          body: archive as BodyInit,
          headers: { "content-type": "application/octet-stream" },
        }),
        { params: Promise.resolve({ token: token!, sha256: sha! }) },
      );
      expect(put.status).toBeLessThan(300);
    }
    expect((await stored()).objects.length).toBeGreaterThan(before.objects.length);
    const body = await refusal(
      await deployPOST(
        apiRequest("/deploy", {
          method: "POST",
          body: JSON.stringify({ zip: ref }),
          headers: { "content-type": "application/json", "x-upload-token": p.upload_token },
          ip: nextIp(),
        }),
        noParams,
      ),
    );
    expect(body.findings?.map((f) => [f.rule, f.file])).toEqual([["credential-form-offsite", "index.html"]]);
    expect(await stored()).toEqual(before);
  });

  it("a one-time grant's deploy (deploy_directory) is scanned the same way", async () => {
    const before = await stored();
    const g = await issueDeployGrant(t.ctx, apiRequest("/mcp", { method: "POST", ip: nextIp() }), anonymousCaller, {
      dir: "site",
    });
    const token = new URL(g.url).pathname.split("/").pop()!;
    const res = await oncePOST(
      apiRequest(`/deploy/once/${token}`, {
        method: "POST",
        body: JSON.stringify({ files: { "assets/app.js": TELEGRAM.content } }),
        headers: { "content-type": "application/json" },
        ip: nextIp(),
      }),
      { params: Promise.resolve({ token }) },
    );
    expect((await refusal(res)).findings?.map((f) => f.rule)).toEqual(["exfiltration-endpoint"]);
    expect(await stored()).toEqual(before);
  });
});

describe("appends", () => {
  it("an append is scanned; its findings are flagged under the new version", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const d = await ok(await deployJson({ "index.html": "<h1>Home</h1>" }, bearer(apiKey)));
    const res = await appendPOST(
      apiRequest(`/deploy/${d.slug}`, {
        method: "POST",
        body: JSON.stringify({ files: { "js/loader.js": PACKED.content, "get/tool.exe": "MZ" } }),
        headers: { "content-type": "application/json", ...bearer(apiKey) },
      }),
      { params: Promise.resolve({ slug: d.slug }) },
    );
    const body = (await res.json()) as { version: number; report: { findings?: { rule: string; file: string }[] } };
    expect(res.status).toBe(200);
    expect(body.report.findings?.map((f) => [f.rule, f.file])).toEqual([
      ["obfuscated-script", "js/loader.js"],
      ["executable", "get/tool.exe"],
    ]);
    const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
    expect((await findingsOf(t.ctx.db, drop.id)).map((r) => [r.rule, r.version])).toEqual([
      ["obfuscated-script", 2],
      ["executable", 2],
    ]);
  });
});

describe("MCP", () => {
  it("an anonymous deploy_files with a severe finding fails with content_refused and stores nothing", async () => {
    const before = await stored();
    const client = await connectInProcess("modern", { ip: nextIp() });
    const r = (await client.callTool({
      name: "deploy_files",
      arguments: { files: { "index.html": asText(PHISH.content) } },
    })) as CallResult;
    await client.close();
    expect(r.isError).toBe(true);
    const envelope = r._meta?.["dev.dropsite/error"] as { code: string; findings?: { rule: string }[] };
    expect(envelope.code).toBe("content_refused");
    expect(envelope.findings?.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
    expect(await stored()).toEqual(before);
  });
});

describe("web-risk", () => {
  it("an anonymous deploy linking to a URL Google lists is refused; the lookup covers markup and _redirects", async () => {
    webRisk.list("https://malware.example/download", ["MALWARE"]);
    webRisk.list("https://phish.example/", ["SOCIAL_ENGINEERING"]);
    webRisk.lookups.length = 0;
    const before = await stored();
    const body = await refusal(
      await deployJson({
        "index.html": `<!doctype html><title>Tools</title>\n<a href="https://MALWARE.example/download">Get it</a>\n<script>fetch("https://in-a-script.example/")</script>`,
        _redirects: "/home /\n/login https://phish.example/ 302\n",
      }),
    );
    expect(body.findings).toEqual([
      { rule: "web-risk", file: "index.html", line: 2, excerpt: "https://malware.example/download (MALWARE)" },
      { rule: "web-risk", file: "_redirects", line: 2, excerpt: "https://phish.example/ (SOCIAL_ENGINEERING)" },
    ]);
    expect(webRisk.lookups.sort()).toEqual(["https://malware.example/download", "https://phish.example/"]);
    expect(await stored()).toEqual(before);
  });

  it("a Web Risk outage lets the deploy through, unchecked", async () => {
    webRisk.list("https://malware.example/download", ["MALWARE"]);
    webRisk.mode = "error";
    const d = await ok(await deployJson({ "index.html": `<a href="https://malware.example/download">x</a>` }));
    expect(d.report?.findings).toBeUndefined();
  });

  it("a miss lets the deploy through", async () => {
    webRisk.lookups.length = 0;
    const d = await ok(await deployJson({ "index.html": `<a href="https://fine.example/">x</a>` }));
    expect(d.report?.findings).toBeUndefined();
    expect(webRisk.lookups).toEqual(["https://fine.example/"]);
  });
});

describe("the byte budget", () => {
  it("a collector past a file's first MB is not found", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const pad = `/*${"x".repeat(SCAN_FILE_BYTES)}*/\n`;
    const d = await ok(
      await deployJson({ "late.js": pad + asText(TELEGRAM.content), "early.js": TELEGRAM.content }, bearer(apiKey)),
    );
    expect(d.report?.findings?.map((f) => f.file)).toEqual(["early.js"]);
  });
});
