import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProgram, type RunResult } from "../support/run";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { freePort, grantPlan, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { registerSecret } from "../support/secrets";

// The real command-line client as a child process against the built app: cli/dist/dropsite.mjs,
// the package's bin, compiled from cli/dropsite.ts by `npm install` and `npm run build` (which
// must have run). A pro account is made the way a self-hoster would: log in with
// an ID token from a real OpenID provider, mint a key over HTTP, stop the app, grant the plan
// with the admin command, start the app again on the same data dir.

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "cli/dist/dropsite.mjs");
const EMAIL = "cli-user@example.test";

let oidc: OidcHarness;
let app: RunningApp;
let dataDir: string;
let work: string;
let proKey: string;
let appVars: Record<string, string>;

/** Runs the CLI with a clean environment: no inherited key, a private config dir. */
function cli(
  args: string[],
  env: Record<string, string> = {},
  configHome = path.join(work, "config-default"),
  stdin?: string,
): Promise<RunResult> {
  return runProgram(process.execPath, [CLI, ...args], {
    cwd: work,
    stdin,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: work,
      NODE_ENV: "production",
      XDG_CONFIG_HOME: configHome,
      DROP_API_URL: app.baseUrl,
      ...env,
    },
  });
}

const json = <T = Record<string, unknown>>(r: RunResult): T => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

async function writeTree(dir: string, files: Record<string, string>): Promise<string> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  return dir;
}

const visit = (slug: string, p: string) => app.request(`${slug}.${app.serveDomain}`, p);

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "dropsite-cli-"));
  dataDir = path.join(work, "data");
  await mkdir(dataDir);
  oidc = await startOidcProvider();
  const port = await freePort();
  appVars = { OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId, RATE_LIMIT_DEPLOYS_PER_MINUTE: "200" };
  app = await startApp(appVars, { dataDir, port });
  const idToken = await oidc.mintIdToken({ sub: "cli-user", email: EMAIL });
  const minted = await app.request(`localhost:${port}`, "/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${idToken}` },
  });
  expect(minted.status, minted.text).toBe(201);
  proKey = (minted.json() as { apiKey: string }).apiKey;
  app = await grantPlan(app, EMAIL, "pro");
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await oidc?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("dropsite deploy", () => {
  it("deploys a folder without .git, node_modules and ignored files; shows progress lines off a TTY", async () => {
    const site = await writeTree(path.join(work, "site"), {
      "index.html": "<h1>from the cli</h1>",
      "sub/page.html": "sub page",
      "secret.txt": "do not upload",
      "debug.log": "nope",
      ".gitignore": "secret.txt\n*.log\n",
      "draft.md": "not yet",
      ".dropignore": "draft.md\n",
      ".git/config": "[core]",
      "node_modules/dep/index.js": "module.exports = 1",
      "assets/node_modules/x.js": "nested too",
      ".env": "SECRET=1",
      ".well-known/security.txt": "Contact: x",
    });
    const r = await cli(["deploy", site, "--json"]);
    const body = json<{ slug: string; url: string; files: string[]; claim_token?: string }>(r);
    // The same selection as the web page's drop zone (lib/files/ignore.ts): dotfiles stay home.
    expect(body.files.sort()).toEqual([".well-known/security.txt", "index.html", "sub/page.html"]);
    expect(body.claim_token).toEqual(expect.any(String));
    expect(r.stderr).toMatch(/^hashing: 100% /m);
    expect(r.stderr).toMatch(/^uploading: 100% /m);
    expect((await visit(body.slug, "/")).text).toBe("<h1>from the cli</h1>");
    expect((await visit(body.slug, "/secret.txt")).status).toBe(404);
    expect((await visit(body.slug, "/.git/config")).status).toBe(404);
    expect((await visit(body.slug, "/.env")).status).toBe(404);
    const withDots = json<{ files: string[] }>(await cli(["deploy", site, "--json", "--include-dotfiles"]));
    expect(withDots.files).toContain(".env");
    expect(withDots.files).not.toContain(".gitignore");
  });

  it("prints the deploy report after a folder deploy, never the secret; --json carries it raw", async () => {
    const key = `sp_${"Rr5-w".repeat(8)}Q_7`;
    const site = await writeTree(path.join(work, "site-report"), {
      "index.html": '<img src="img/missing.png"><link rel="stylesheet" href="s.css">',
      "s.css": "",
      "config.js": `export const key = "${key}";`,
    });
    const r = await cli(["deploy", site]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Report: 1 warning, 1 missing reference.");
    expect(r.stdout).toContain("missing index.html → img/missing.png");
    expect(r.stdout).toMatch(/warning secret \(dropsite_api_key\) config\.js: Line 1/);
    expect(r.stdout + r.stderr).not.toContain(key);
    const body = json<{ report: { missing_references: unknown[] } }>(await cli(["deploy", site, "--json"]));
    expect(body.report.missing_references).toEqual([{ path: "index.html", ref: "img/missing.png" }]);
  });

  it("deploys a single HTML file and tells an anonymous user how to claim it", async () => {
    const file = path.join(work, "page.html");
    await writeFile(file, "<p>single</p>");
    const r = await cli(["deploy", file]);
    expect(r.code, r.stderr).toBe(0);
    const url = /^URL:\s+(\S+)$/m.exec(r.stdout)?.[1];
    expect(url).toMatch(new RegExp(`^http://[a-z0-9]+\\.localhost:${app.port}/$`));
    expect(r.stdout).toMatch(/^Claim token: \S+$/m);
    expect(r.stdout).toMatch(/dropsite claim [a-z0-9]+ \S+/);
    const slug = new URL(url!).hostname.split(".")[0]!;
    expect((await visit(slug, "/")).text).toBe("<p>single</p>");
  });

  it("deploys a zip as is", async () => {
    const file = path.join(work, "site.zip");
    await writeFile(file, zipSync({ "dist/index.html": strToU8("zipped"), "dist/a.css": strToU8("a{}") }));
    const body = json<{ slug: string; files: string[] }>(await cli(["deploy", file, "--json"]));
    expect(body.files.sort()).toEqual(["a.css", "index.html"]);
    expect((await visit(body.slug, "/")).text).toBe("zipped");
  });

  it("deploys 4 MB of highly compressible text (a 2.4 MB bundle, 1.7 MB of JSON) anonymously", async () => {
    let bundle = "";
    for (let i = 0; bundle.length < 2.4 * 1024 * 1024; i++)
      bundle += `export function handler${i % 50}(event) { return dispatch({ type: "event", payload: event }); }\n`;
    let data = "[";
    for (let i = 0; data.length < 1.7 * 1024 * 1024; i++) data += `{"id":${i % 100},"name":"item","tags":["a","b"]},`;
    data += "{}]";
    const site = await writeTree(path.join(work, "text-heavy"), {
      "index.html": '<script src="app.js"></script>',
      "app.js": bundle,
      "data.json": data,
    });
    const body = json<{ slug: string; files: string[] }>(await cli(["deploy", site, "--json"]));
    expect(body.files.sort()).toEqual(["app.js", "data.json", "index.html"]);
    expect((await visit(body.slug, "/app.js")).text).toBe(bundle);
    expect((await visit(body.slug, "/data.json")).text).toBe(data);
  });

  it("a named drop redeploys in place and append adds files (pro key from DROP_API_KEY)", async () => {
    const env = { DROP_API_KEY: proKey };
    const v1 = await writeTree(path.join(work, "named-v1"), { "index.html": "v1" });
    const v2 = await writeTree(path.join(work, "named-v2"), { "index.html": "v2" });
    const first = json<{ slug: string; url: string; name: string; replaced: boolean; expires_at: null }>(
      await cli(["deploy", v1, "--name", "docs", "--json"], env),
    );
    expect(first).toMatchObject({ name: "docs", replaced: false, expires_at: null, plan: "pro" });
    const second = json<{ slug: string; url: string; replaced: boolean }>(
      await cli(["deploy", v2, "--name", "docs", "--json"], env),
    );
    expect(second).toMatchObject({ slug: first.slug, url: first.url, replaced: true });
    expect((await visit(first.slug, "/")).text).toBe("v2");
    // Not a single top-level folder: the server strips one from any zip (see docs/cli.md).
    const more = await writeTree(path.join(work, "more"), { "extra/one.html": "one", "two.html": "two" });
    const appended = await cli(["deploy", more, "--append", first.slug], env);
    expect(appended.code, appended.stderr).toBe(0);
    expect(appended.stdout).toContain(`Added 2 files to ${first.slug} (3 in total)`);
    expect((await visit(first.slug, "/extra/one.html")).text).toBe("one");
    expect((await visit(first.slug, "/two.html")).text).toBe("two");
  });

  it("a redeploy uploads only the changed files and says how many were unchanged", async () => {
    const env = { DROP_API_KEY: proKey };
    const tree = (changed: Record<string, string>) => ({
      ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`pages/p${i}.html`, `<p>page ${i}</p>`])),
      "index.html": "<h1>home</h1>",
      ...changed,
    });
    const v1 = await writeTree(path.join(work, "incr-v1"), tree({}));
    const first = await cli(["deploy", v1, "--name", "incremental", "--json"], env);
    const body = json<{ slug: string }>(first);
    // A first deploy says nothing about unchanged files.
    expect(first.stderr).not.toMatch(/unchanged/);
    const v2 = await writeTree(
      path.join(work, "incr-v2"),
      tree({ "pages/p1.html": "<p>new 1</p>", "pages/p2.html": "<p>new 2</p>", "index.html": "<h1>new home</h1>" }),
    );
    const second = await cli(["deploy", v2, "--name", "incremental"], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^48 of 51 files unchanged/m);
    // The upload display counts the PUTs: exactly the three changed contents.
    expect(second.stderr).toMatch(/^uploading: 100% \(.*, 3\/3 files\)/m);
    expect((await visit(body.slug, "/")).text).toBe("<h1>new home</h1>");
    expect((await visit(body.slug, "/pages/p2.html")).text).toBe("<p>new 2</p>");
    expect((await visit(body.slug, "/pages/p9.html")).text).toBe("<p>page 9</p>");
  });

  it("over the anonymous file cap: exit 1 with the code, the hint and the upgrade URL", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, `file ${i}`]),
    );
    const dir = await writeTree(path.join(work, "many"), many);
    const r = await cli(["deploy", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Error: .*101 files.* \(file_cap_exceeded, HTTP 400\)$/m);
    expect(r.stderr).toMatch(/^Hint: Paid plans raise this limit/m);
    expect(r.stderr).toMatch(new RegExp(`^Upgrade: ${app.baseUrl}/#pricing$`, "m"));
    const asJson = await cli(["deploy", dir, "--json", "--quiet"]);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      code: "file_cap_exceeded",
      status: 400,
      hint: expect.any(String),
      upgrade_url: `${app.baseUrl}/#pricing`,
    });
  });

  it("a bad ttl is refused by the server with its code", async () => {
    const file = path.join(work, "ttl.html");
    await writeFile(file, "x");
    const r = await cli(["deploy", file, "--ttl", "30"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("(invalid_ttl, HTTP 400)");
  });
});

describe("dropsite list, delete and limits", () => {
  it("lists, deletes, and answers not_found for a deleted drop", async () => {
    const env = { DROP_API_KEY: proKey };
    const dir = await writeTree(path.join(work, "to-delete"), { "index.html": "bye" });
    const { slug } = json<{ slug: string }>(await cli(["deploy", dir, "--json"], env));
    const listed = json<{ total: number; drops: { slug: string }[] }>(await cli(["list", "--json"], env));
    expect(listed.drops.map((d) => d.slug)).toContain(slug);
    const table = await cli(["list"], env);
    expect(table.stdout).toMatch(/^SLUG\s+NAME\s+FILES\s+EXPIRES\s+URL$/m);
    expect(table.stdout).toContain(slug);
    const del = await cli(["delete", slug], env);
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout).toBe(`Deleted ${slug}\n`);
    expect(
      json<{ drops: { slug: string }[] }>(await cli(["list", "--json"], env)).drops.map((d) => d.slug),
    ).not.toContain(slug);
    const again = await cli(["delete", slug], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("(not_found, HTTP 404)");
  });

  it("list without a key exits 2 and says how to log in", async () => {
    const r = await cli(["list"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("dropsite login");
  });

  it("limits reports the plan", async () => {
    expect(json<{ plan: string }>(await cli(["limits", "--json"])).plan).toBe("anonymous");
    expect(
      json<{ plan: string; limits: { files_per_request: number } }>(
        await cli(["limits", "--json"], { DROP_API_KEY: proKey }),
      ),
    ).toMatchObject({ plan: "pro", limits: { files_per_request: 900 } });
  });
});

describe("dropsite login and logout", () => {
  it("login validates the key and stores it 0600 in $XDG_CONFIG_HOME/dropsite; logout removes it", async () => {
    const home = path.join(work, "xdg-login");
    const file = path.join(home, "dropsite", "config.json");
    const bad = await cli(["login", "--key", `sp_${"A".repeat(43)}`], {}, home);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("auth_required");
    await expect(stat(file)).rejects.toThrow();

    const ok = await cli(["login", "--key", proKey], {}, home);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("plan pro");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ api: app.baseUrl, apiKey: proKey });

    // The stored key is used for the API it was stored for.
    expect(json<{ plan: string }>(await cli(["limits", "--json"], {}, home)).plan).toBe("pro");
    expect((await cli(["list", "--json"], {}, home)).code).toBe(0);

    const out = await cli(["logout"], {}, home);
    expect(out.code).toBe(0);
    await expect(stat(file)).rejects.toThrow();
    expect((await cli(["list"], {}, home)).code).toBe(2);
  });

  it("a stored key is never sent to another API URL", async () => {
    const home = path.join(work, "xdg-other");
    expect((await cli(["login", "--key", proKey], {}, home)).code).toBe(0);
    const elsewhere = await freePort();
    // Same app, addressed by a different URL: the stored key does not apply, so this is anonymous.
    const r = await cli(["limits", "--json", "--api", `http://127.0.0.1:${app.port}`], {}, home);
    expect(json<{ plan: string }>(r).plan).toBe("anonymous");
    const unreachable = await cli(["limits", "--api", `http://127.0.0.1:${elsewhere}`], {}, home);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain("Cannot reach");
  });
});

describe("dropsite access", () => {
  it("--password-stdin protects a drop with the password without its line ending; --public opens it; bad input changes nothing", async () => {
    const site = await writeTree(path.join(work, "private-site"), { "index.html": "<h1>private page</h1>" });
    const { slug } = json<{ slug: string }>(await cli(["deploy", site, "--json"], { DROP_API_KEY: proKey }));
    const host = `${slug}.${app.serveDomain}`;
    const password = "a cli passphrase";
    registerSecret("drop password", password);
    const set = await cli(
      ["access", slug, "--password-stdin", "--json"],
      { DROP_API_KEY: proKey },
      undefined,
      `${password}\r\n`,
    );
    expect(json(set)).toEqual({ slug, mode: "password" });
    expect(set.stdout + set.stderr).not.toContain(password);
    const locked = await visit(slug, "/");
    expect(locked.status).toBe(401);
    expect(locked.text).not.toContain("private page");
    const unlock = (p: string) =>
      app.request(host, "/.well-known/dropsite/unlock", {
        method: "POST",
        body: new URLSearchParams({ password: p, path: "/" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    expect((await unlock(`${password}\r\n`)).status).toBe(401);
    const ok = await unlock(password);
    expect(ok.status).toBe(303);
    const cookie = String(ok.headers["set-cookie"]).split(";")[0]!;
    expect((await app.request(host, "/", { headers: { cookie } })).text).toContain("private page");
    // Plain "\n" is taken off too.
    expect(
      (await cli(["access", slug, "--password-stdin"], { DROP_API_KEY: proKey }, undefined, `${password}2\n`)).code,
    ).toBe(0);
    expect((await unlock(`${password}2`)).status).toBe(303);
    // Too short: the API's envelope and a non-zero exit; nothing changes.
    const short = await cli(
      ["access", slug, "--password-stdin", "--json"],
      { DROP_API_KEY: proKey },
      undefined,
      "short\n",
    );
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stdout)).toMatchObject({ code: "invalid_request" });
    expect((await unlock(`${password}2`)).status).toBe(303);
    // Neither or both flags: usage.
    expect((await cli(["access", slug], { DROP_API_KEY: proKey })).code).toBe(2);
    expect(
      (await cli(["access", slug, "--public", "--password-stdin"], { DROP_API_KEY: proKey }, undefined, "x")).code,
    ).toBe(2);
    const open = await cli(["access", slug, "--public"], { DROP_API_KEY: proKey });
    expect(open.code).toBe(0);
    expect(open.stdout).toContain("is public");
    expect((await visit(slug, "/")).text).toContain("private page");
  });
});

describe("dropsite help and version", () => {
  it("--version prints package.json's version", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
      bin: Record<string, string>;
    };
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
    expect(path.join(ROOT, pkg.bin.dropsite!)).toBe(CLI);
  });

  it("each command's --help is its own text, on stdout, exit 0", async () => {
    const seen = new Set<string>();
    for (const command of ["deploy", "list", "delete", "claim", "access", "limits", "login", "logout"]) {
      const r = await cli([command, "--help"]);
      expect(r.code, command).toBe(0);
      expect(r.stderr, command).toBe("");
      expect(r.stdout, command).toMatch(new RegExp(`^Usage: dropsite ${command}\\b`));
      seen.add(r.stdout);
    }
    expect(seen.size).toBe(8);
    const general = await cli(["--help"]);
    expect(general.stdout).toContain("dropsite deploy [dir|file.html|file.zip]");
    const bare = await cli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toContain("Usage:");
  });
});
