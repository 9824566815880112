import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as domainsRoute from "@/app/domains/route";
import * as domainRoute from "@/app/domains/[hostname]/route";
import * as verifyRoute from "@/app/domains/[hostname]/verify/route";
import { suiteContext } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { startDnsStandin } from "../support/dns-standin";
import { freePort } from "../support/net";
import { runProgram, type RunResult } from "../support/run";

// The command-line client (cli/dist/dropsite.mjs, built by scripts/build-cli.mjs) against the
// route modules of this suite's context on a loopback port: dropsite domains add|list|verify|rm,
// with a local DNS server whose TXT records the test sets.

const dns = await startDnsStandin();
const t = suiteContext({ DNS_SERVERS: dns.servers }, { freshLimiter: true });
const CLI = path.resolve(import.meta.dirname, "../../cli/dist/dropsite.mjs");
let server: Server;
let api: string;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "dropsite-dcli-"));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = new URL(req.url ?? "/", api);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
        headers.set("x-dropsite-socket-ip", "203.0.113.51");
        const body = chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined;
        const request = new Request(url, { method: req.method, headers, body });
        const m = /^\/domains\/([^/]+)(\/verify)?$/.exec(url.pathname);
        let answer: Response;
        if (url.pathname === "/deploy" && req.method === "POST") answer = await deployPOST(request, { params: Promise.resolve({}) });
        else if (url.pathname === "/domains" && req.method === "POST") answer = await domainsRoute.POST(request, { params: Promise.resolve({}) });
        else if (url.pathname === "/domains") answer = await domainsRoute.GET(request, { params: Promise.resolve({}) });
        else if (m?.[2]) answer = await verifyRoute.POST(request, { params: Promise.resolve({ hostname: m[1]! }) });
        else if (m) answer = await domainRoute.DELETE(request, { params: Promise.resolve({ hostname: m[1]! }) });
        else answer = new Response("{}", { status: 404 });
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
  });
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await dns.close();
  await rm(work, { recursive: true, force: true });
});

function cli(args: string[], key: string): Promise<RunResult> {
  return runProgram(process.execPath, [CLI, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? "", HOME: work, NODE_ENV: "production", XDG_CONFIG_HOME: path.join(work, "config"), DROP_API_URL: api, DROP_API_KEY: key },
  });
}

describe("dropsite domains", () => {
  it("adds a domain and prints the DNS records, verifies it once the TXT record is published, lists it, removes it", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const deployed = await deployPOST(
      new Request(`${api}/deploy`, { method: "POST", body: "<p>x</p>", headers: { "content-type": "text/html", authorization: `Bearer ${apiKey}`, "x-dropsite-socket-ip": "203.0.113.52" } }),
      { params: Promise.resolve({}) },
    );
    const { slug } = (await deployed.json()) as { slug: string };

    const added = await cli(["domains", "add", "Docs.CLI.example", slug], apiKey);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("TXT    _dropsite-challenge.docs.cli.example");
    expect(added.stdout).toContain(`CNAME  docs.cli.example  ${slug}.`);
    const value = /"(dropsite-verify=[^"]+)"/.exec(added.stdout)?.[1];
    expect(value).toBeDefined();

    const pending = await cli(["domains", "verify", "docs.cli.example"], apiKey);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toContain("docs.cli.example is pending: no TXT record yet");

    dns.setTxt("_dropsite-challenge.docs.cli.example", [value!]);
    const active = await cli(["domains", "verify", "docs.cli.example", "--json"], apiKey);
    expect(active.code, active.stderr).toBe(0);
    expect(JSON.parse(active.stdout)).toMatchObject({ hostname: "docs.cli.example", status: "active", slug });

    const listed = await cli(["domains", "list"], apiKey);
    expect(listed.stdout).toMatch(new RegExp(`docs\\.cli\\.example\\s+${slug}\\s+active`));

    const removed = await cli(["domains", "rm", "docs.cli.example"], apiKey);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe("Removed docs.cli.example\n");
    expect((await cli(["domains", "list"], apiKey)).stdout).toBe("No custom domains.\n");

    const again = await cli(["domains", "rm", "docs.cli.example"], apiKey);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not_found");
    const bad = await cli(["domains", "add", "only-one-arg"], apiKey);
    expect(bad.code).toBe(2);
  });

  it("a free account gets the plan error with its upgrade link", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const res = await cli(["domains", "add", "x.cli.example", "aaaaaaaaaaaaaaaaaaaa"], apiKey);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("subscription_required");
    expect(res.stderr).toContain("Upgrade:");
  });
});
