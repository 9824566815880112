import { afterAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as domainsRoute from "@/app/domains/route";
import * as domainRoute from "@/app/domains/[hostname]/route";
import * as verifyRoute from "@/app/domains/[hostname]/verify/route";
import { suiteContext } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { startDnsStandin } from "../support/dns-standin";
import { cliAgainstRoutes } from "../support/cli";

// The command-line client (cli/dist/dropsite.mjs, built by scripts/build-cli.mjs) against the
// route modules of this suite's context on a loopback port: dropsite domains add|list|verify|rm,
// with a local DNS server whose TXT records the test sets.

const dns = await startDnsStandin();
const t = suiteContext({ DNS_SERVERS: dns.servers }, { freshLimiter: true });
const suite = cliAgainstRoutes("203.0.113.51", async (request, url) => {
  const m = /^\/domains\/([^/]+)(\/verify)?$/.exec(url.pathname);
  if (url.pathname === "/deploy" && request.method === "POST")
    return deployPOST(request, { params: Promise.resolve({}) });
  if (url.pathname === "/domains" && request.method === "POST")
    return domainsRoute.POST(request, { params: Promise.resolve({}) });
  if (url.pathname === "/domains") return domainsRoute.GET(request, { params: Promise.resolve({}) });
  if (m?.[2]) return verifyRoute.POST(request, { params: Promise.resolve({ hostname: m[1]! }) });
  if (m) return domainRoute.DELETE(request, { params: Promise.resolve({ hostname: m[1]! }) });
  return null;
});
const { cli } = suite;
afterAll(() => dns.close());

describe("dropsite domains", () => {
  it("adds a domain and prints the DNS records, verifies it once the TXT record is published, lists it, removes it", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const deployed = await deployPOST(
      new Request(`${suite.api}/deploy`, {
        method: "POST",
        body: "<p>x</p>",
        headers: {
          "content-type": "text/html",
          authorization: `Bearer ${apiKey}`,
          "x-dropsite-socket-ip": "203.0.113.52",
        },
      }),
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
