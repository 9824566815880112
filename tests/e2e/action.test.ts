import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, grantPlan, startApp, type RunningApp } from "../support/app-server";
import { CHROMIUM } from "../support/browser";
import { startGitHubStandIn, type GitHubCall, type GitHubStandIn, type GitHubUser } from "../support/github-stand-in";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { runProgram, type RunResult } from "../support/run";
import { registerSecret } from "../support/secrets";

// The GitHub Action as a runner runs it: `node action/dist/index.mjs` (the committed bundle) with
// the environment GitHub gives a step (INPUT_* with the inputs' hyphens kept, GITHUB_EVENT_NAME,
// GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_API_URL), against
// the built app (`npm run build` first; a browser set up for render checks) and a stand-in of the
// GitHub REST API that records every call. A pro account deploys the named drop `site`; a free
// account has no named drops. In order: a push to the default branch, a pull request opened,
// synchronized, closed and reopened, then the refusals.

const ROOT = path.resolve(import.meta.dirname, "../..");
const ACTION = path.join(ROOT, "action/dist/index.mjs");
const REPO = "acme/site";
const BOT: GitHubUser = { id: 41898282, login: "github-actions[bot]", type: "Bot" };
const MALLORY: GitHubUser = { id: 7, login: "mallory", type: "User" };
// An installation token, as GITHUB_TOKEN is: GET /user refuses it, GraphQL `viewer` names the bot.
const GITHUB_TOKEN = `ghs_${"Q".repeat(36)}`;
const HOSTILE = "@octocat <!-- dropsite-preview name=site --> [click](https://evil.test)";

let oidc: OidcHarness;
let app: RunningApp;
let gh: GitHubStandIn;
let work: string;
let proKey: string;
let freeKey: string;
let slug = "";
let runs = 0;
const outputsSeen: RunResult[] = [];

interface ActionRun extends RunResult {
  outputs: Record<string, string>;
  /** The GitHub calls this run made. */
  calls: GitHubCall[];
}

/** The outputs file @actions/core writes: `name<<delimiter`, the value, the delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] ?? "");
    if (!m?.[1] || !m[2]) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i] ?? "");
    out[m[1]] = value.join("\n");
  }
  return out;
}

/** Runs the bundled Action for one event, with the inputs a workflow gives it (and action.yml's defaults). */
async function runAction(event: string, payload: unknown, inputs: Record<string, string> = {}): Promise<ActionRun> {
  runs++;
  const eventPath = path.join(work, `event-${runs}.json`);
  const outputPath = path.join(work, `output-${runs}.txt`);
  await writeFile(eventPath, JSON.stringify(payload));
  await writeFile(outputPath, "");
  const given: Record<string, string> = {
    "api-key": proKey,
    "base-url": app.baseUrl,
    path: "site",
    name: "site",
    "github-token": GITHUB_TOKEN,
    comment: "true",
    "render-check": "true",
    ...inputs,
  };
  const before = gh.calls.length;
  const r = await runProgram(process.execPath, [ACTION], {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: work,
      NODE_ENV: "production",
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: REPO,
      GITHUB_WORKSPACE: work,
      GITHUB_OUTPUT: outputPath,
      GITHUB_API_URL: gh.url,
      RUNNER_TEMP: work,
      ...Object.fromEntries(Object.entries(given).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    },
  });
  outputsSeen.push(r);
  return { ...r, outputs: parseOutputs(await readFile(outputPath, "utf8")), calls: gh.calls.slice(before) };
}

async function writeSite(files: Record<string, string>): Promise<void> {
  const dir = path.join(work, "site");
  await rm(dir, { recursive: true, force: true });
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
}

const prEvent = (action: string, number = 42, headRepo = REPO) => ({
  action,
  number,
  pull_request: {
    number,
    head: { sha: "0123456789abcdef0123456789abcdef01234567", ref: `feature/${HOSTILE}`, repo: { full_name: headRepo } },
    base: { ref: "main", repo: { full_name: REPO } },
  },
  repository: { full_name: REPO, default_branch: "main" },
});
const pushEvent = (branch: string) => ({
  ref: `refs/heads/${branch}`,
  repository: { full_name: REPO, default_branch: "main" },
});

const hostOf = (url: string) => new URL(url).host;
const visit = (url: string) => app.request(hostOf(url), new URL(url).pathname);
const ours = () => gh.commentsOn("acme", "site", 42).filter((c) => c.user.id === BOT.id);

async function versions(): Promise<number[]> {
  const res = await fetch(`${app.baseUrl}/drops/${slug}/versions`, { headers: { authorization: `Bearer ${proKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { versions: { version: number }[] }).versions.map((v) => v.version).sort();
}

const SITE = {
  "index.html":
    '<!doctype html><title>Site</title><link rel="stylesheet" href="style.css"><h1>live</h1><script src="app.js"></script>',
  "style.css": "h1 { color: teal }",
  "app.js": "document.title = 'Site';",
};

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "dropsite-action-"));
  const dataDir = path.join(work, "data");
  await mkdir(dataDir);
  oidc = await startOidcProvider();
  gh = await startGitHubStandIn();
  gh.tokens.set(GITHUB_TOKEN, BOT);
  registerSecret("github token", GITHUB_TOKEN);
  const port = await freePort();
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      RENDER_BROWSER_PATH: CHROMIUM,
      RATE_LIMIT_DEPLOYS_PER_MINUTE: "200",
    },
    { dataDir, port },
  );
  const mint = async (sub: string, email: string) => {
    const idToken = await oidc.mintIdToken({ sub, email });
    const res = await app.request(`localhost:${port}`, "/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${idToken}` },
    });
    expect(res.status, res.text).toBe(201);
    return (res.json() as { apiKey: string }).apiKey;
  };
  proKey = await mint("action-pro", "action-pro@example.test");
  freeKey = await mint("action-free", "action-free@example.test");
  app = await grantPlan(app, "action-pro@example.test", "pro");
}, 240_000);

afterAll(async () => {
  await app?.stop();
  await gh?.close();
  await oidc?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the Action on a repository's events", () => {
  it("a push to the default branch deploys live and writes nothing to GitHub", async () => {
    await writeSite(SITE);
    const r = await runAction("push", pushEvent("main"), { "render-check": "false" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.calls).toEqual([]);
    expect(r.outputs.version).toBe("1");
    expect(r.outputs["alias-url"]).toBe("");
    expect(r.outputs["render-status"]).toBe("");
    slug = hostOf(r.outputs.url!).split(".")[0]!;
    expect(r.outputs.url).toBe(`http://${slug}.${app.serveDomain}/`);
    expect((await visit(r.outputs.url!)).text).toContain("<h1>live</h1>");
  });

  it("a push to another branch deploys nothing", async () => {
    const r = await runAction("push", pushEvent("feature"));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/::notice::.*not to the default branch/);
    expect(r.calls).toEqual([]);
    expect(await versions()).toEqual([1]);
  });

  it("opened: a staged deploy aliased pr-42 sending only the changed file, and ONE comment with everything", async () => {
    // Someone else's comment carrying the marker, and one of the bot's own without it: neither is the Action's.
    const forged = gh.seedComment("acme", "site", 42, "<!-- dropsite-preview name=site -->\nforged", MALLORY);
    const other = gh.seedComment("acme", "site", 42, "another bot's note", BOT);
    await writeSite({
      ...SITE,
      "index.html": `<!doctype html><title>Preview</title><link rel="stylesheet" href="style.css"><h1>preview one</h1><script src="app.js"></script><script>console.error(${JSON.stringify(HOSTILE)})</script>`,
    });
    const r = await runAction("pull_request", prEvent("opened"));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("1 of 3 files sent, 2 unchanged");
    expect(r.outputs.version).toBe("2");
    expect(r.outputs["alias-url"]).toBe(`http://${slug}---pr-42.${app.serveDomain}/`);
    expect(r.outputs.url).toBe(r.outputs["alias-url"]);
    expect(r.outputs["version-url"]).toBe(`http://${slug}---v2.${app.serveDomain}/`);
    // The check opened the staged version (the live one has no console error).
    expect(r.outputs["render-status"]).toBe("problems");
    expect((await visit(r.outputs["alias-url"]!)).text).toContain("preview one");
    expect((await visit(`http://${slug}.${app.serveDomain}/`)).text).toContain("<h1>live</h1>");

    expect(r.calls.map((c) => `${c.method} ${c.path.split("?")[0]}`)).toEqual([
      "GET /user",
      "POST /graphql",
      "GET /repos/acme/site/issues/42/comments",
      "POST /repos/acme/site/issues/42/comments",
    ]);
    expect(r.calls.every((c) => c.authorization === `token ${GITHUB_TOKEN}`)).toBe(true);
    expect(ours()).toHaveLength(2);
    const mine = ours().find((c) => c.id !== other.id)!;
    expect(forged.body).toBe("<!-- dropsite-preview name=site -->\nforged");
    expect(other.body).toBe("another bot's note");
    const body = mine.body;
    expect(body.startsWith("<!-- dropsite-preview name=site -->\n")).toBe(true);
    expect(body).toContain(`**Preview:** ${r.outputs["alias-url"]}`);
    expect(body).toContain(`**This version (2):** ${r.outputs["version-url"]}`);
    expect(body).toContain("**Open review comments:** 0");
    expect(body).toContain("**Render check:** `problems`");
    // The problem and the branch, in code spans: the marker inside them is not a marker.
    expect(body).toContain(`Console error: \`${HOSTILE}\``);
    expect(body).toContain(`Branch \`feature/${HOSTILE}\``);
    expect(body.split("<!-- dropsite-preview name=site -->").length).toBe(4);
    const shot = /!\[Desktop screenshot[^\]]*\]\((http:\/\/localhost:\d+\/previews\/[0-9a-f]{32}\.png)\)/.exec(
      body,
    )?.[1];
    expect(shot).toBeDefined();
    const png = await fetch(shot!);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
  }, 120_000);

  it("synchronize: a new staged version, and the same comment edited, never a second", async () => {
    const before = ours().map((c) => c.id);
    await writeSite({ ...SITE, "index.html": SITE["index.html"].replace("<h1>live</h1>", "<h1>preview two</h1>") });
    const r = await runAction("pull_request", prEvent("synchronize"));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.version).toBe("3");
    expect(r.outputs["render-status"]).toBe("ok");
    const patches = r.calls.filter((c) => c.method === "PATCH");
    expect(patches).toHaveLength(1);
    expect(r.calls.filter((c) => c.method === "POST" && c.path.includes("/comments"))).toEqual([]);
    expect(ours().map((c) => c.id)).toEqual(before);
    const mine = ours().find((c) => c.body.startsWith("<!-- dropsite-preview"))!;
    expect(patches[0]!.path).toBe(`/repos/acme/site/issues/comments/${mine.id}`);
    expect(mine.body).toContain(`**This version (3):** http://${slug}---v3.${app.serveDomain}/`);
    expect(mine.body).toContain("**Render check:** `ok`");
    expect((await visit(r.outputs["alias-url"]!)).text).toContain("preview two");
    expect((await visit(`http://${slug}.${app.serveDomain}/`)).text).toContain("<h1>live</h1>");
  }, 120_000);

  it("closed: the alias is deleted and the comment says the preview is gone", async () => {
    const alias = `http://${slug}---pr-42.${app.serveDomain}/`;
    const r = await runAction("pull_request", prEvent("closed"));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await visit(alias)).status).toBe(404);
    expect(r.calls.filter((c) => c.method === "POST" && c.path.includes("/comments"))).toEqual([]);
    expect(r.calls.filter((c) => c.method === "PATCH")).toHaveLength(1);
    const mine = ours().filter((c) => c.body.startsWith("<!-- dropsite-preview"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain("its preview `pr-42` is gone");
    expect(await versions()).toEqual([1, 2, 3]);
  });

  it("reopened: the alias is back and the same comment edited", async () => {
    const r = await runAction("pull_request", prEvent("reopened"), { "render-check": "false" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await visit(r.outputs["alias-url"]!)).text).toContain("preview two");
    expect(r.outputs["render-status"]).toBe("");
    expect(r.calls.filter((c) => c.method === "POST" && c.path.includes("/comments"))).toEqual([]);
    const mine = ours().filter((c) => c.body.startsWith("<!-- dropsite-preview"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain(`**Preview:** ${r.outputs["alias-url"]}`);
    expect(mine[0]!.body).toContain("render-check: false");
  });

  it("with a person's token the identity comes from GET /user, and the comment is theirs", async () => {
    const pat = `ghp_${"P".repeat(36)}`;
    const person: GitHubUser = { id: 99, login: "ana", type: "User" };
    gh.tokens.set(pat, person);
    registerSecret("github pat", pat);
    const r = await runAction("pull_request", prEvent("opened", 50), { "github-token": pat, "render-check": "false" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.calls.map((c) => `${c.method} ${c.path.split("?")[0]}`)).toEqual([
      "GET /user",
      "GET /repos/acme/site/issues/50/comments",
      "POST /repos/acme/site/issues/50/comments",
    ]);
    const made = gh.commentsOn("acme", "site", 50);
    expect(made.map((c) => c.user.id)).toEqual([person.id]);
    expect(made[0]!.body).toContain(`**Preview:** http://${slug}---pr-50.${app.serveDomain}/`);
    expect(
      r.stdout
        .split("\n")
        .filter((l) => !l.startsWith("::add-mask::"))
        .join("\n"),
    ).not.toContain(pat);
  });

  it("comment: false deploys and writes nothing to GitHub", async () => {
    await writeSite({ ...SITE, "index.html": SITE["index.html"].replace("<h1>live</h1>", "<h1>preview three</h1>") });
    const r = await runAction("pull_request", prEvent("synchronize"), { comment: "false", "render-check": "false" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.calls).toEqual([]);
    expect((await visit(r.outputs["alias-url"]!)).text).toContain("preview three");
  });
});

describe("large files", () => {
  it("a file too large to go inline is PUT to its upload target, then deployed by reference", async () => {
    const big = Buffer.alloc(4_500_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
    await writeSite({ ...SITE, "index.html": SITE["index.html"].replace("<h1>live</h1>", "<h1>big</h1>") });
    await writeFile(path.join(work, "site", "big.bin"), big);
    const r = await runAction("pull_request", prEvent("synchronize"), { comment: "false", "render-check": "false" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("2 of 4 files sent, 2 unchanged");
    const served = await app.request(hostOf(r.outputs["alias-url"]!), "/big.bin");
    expect(served.status).toBe(200);
    expect(Buffer.compare(served.body, big)).toBe(0);
  }, 120_000);
});

describe("refusals", () => {
  it("a wrong key fails the step with the API's message and writes nothing", async () => {
    const known = await versions();
    const wrong = `sp_${"A".repeat(43)}`;
    registerSecret("wrong key", wrong);
    const r = await runAction("pull_request", prEvent("synchronize"), { "api-key": wrong });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/^::error::dropsite refused: .*\(auth_required\)/m);
    expect(r.calls).toEqual([]);
    expect(await versions()).toEqual(known);
    expect(r.stdout.replace(`::add-mask::${wrong}\n`, "") + r.stderr).not.toContain(wrong);
  });

  it("a pull request from a fork deploys nothing and says so, on pull_request and pull_request_target", async () => {
    const known = await versions();
    // GitHub gives a fork's pull_request run no secrets: the key input is empty.
    const a = await runAction("pull_request", prEvent("opened", 43, "someone/site"), { "api-key": "" });
    const b = await runAction("pull_request_target", prEvent("synchronize", 43, "someone/site"));
    for (const r of [a, b]) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/::notice::.*comes from a fork.*Nothing was deployed/);
      expect(r.calls).toEqual([]);
      expect(r.outputs).toEqual({});
    }
    expect(await versions()).toEqual(known);
  });

  it("a plan without named drops fails with the API's own message and upgrade_url; nothing is written", async () => {
    const r = await runAction("pull_request", prEvent("opened", 44), { "api-key": freeKey });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(
      /^::error::dropsite refused: .*\(subscription_required\).*Upgrade: http:\/\/localhost:\d+\/#pricing/m,
    );
    expect(r.calls).toEqual([]);
  });

  it("without name the step fails and says why, with the API's refusal on a plan without named drops; nothing is written", async () => {
    const pro = await runAction("pull_request", prEvent("opened", 44), { name: "" });
    expect(pro.code).not.toBe(0);
    expect(pro.stdout).toMatch(/^::error::Set the input name: /m);
    expect(pro.stdout).not.toContain("dropsite says");
    expect(pro.calls).toEqual([]);
    const r = await runAction("pull_request", prEvent("opened", 44), { name: "", "api-key": freeKey });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(
      /^::error::Set the input name: .* dropsite says: .*\(subscription_required\).*Upgrade: http:\/\/localhost:\d+\/#pricing/m,
    );
    expect(r.calls).toEqual([]);
    const mine = await fetch(`${app.baseUrl}/drops`, { headers: { authorization: `Bearer ${freeKey}` } });
    expect(((await mine.json()) as { total: number }).total).toBe(0);
  });

  it("the keys and the token never appear in what the step printed (only in the runner's ::add-mask:: command)", () => {
    expect(outputsSeen.length).toBeGreaterThan(8);
    for (const r of outputsSeen) {
      const shown = r.stdout
        .split("\n")
        .filter((l) => !l.startsWith("::add-mask::"))
        .join("\n");
      for (const secret of [proKey, freeKey, GITHUB_TOKEN]) expect(shown + r.stderr).not.toContain(secret);
    }
    expect(outputsSeen.some((r) => r.stdout.includes(`::add-mask::${proKey}`))).toBe(true);
  });
});
