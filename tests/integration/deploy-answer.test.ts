import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as onceRoute from "@/app/deploy/once/[token]/route";
import * as aliasesRoute from "@/app/drops/[slug]/aliases/route";
import { countDrops } from "@/lib/db/queries";
import { deployResponseSchema, appendResponseSchema } from "@/lib/schemas";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { CLIENT_FLAVOURS, connectAgent, resultText } from "../support/mcp";
import { serveGET } from "../support/serve";

// What every deploy answer says of versions (DESIGN round 5, "Previews": `promoted` and
// `live_version` on every one), and what it says of `?alias=` (MCP `alias`): the alias and its
// URL, `alias: {name, url}`, on REST, the one-time URL of deploy_directory and the MCP tools.

const t = suiteContext({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "200" }, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;
const nextIp = () => `198.51.100.${++ip % 250}`;
const served = async (label: string) => (await serveGET(dropRequest(label, "/api/serve-drop/"))).text();
const aliasUrl = (slug: string, name: string) => `http://${slug}---${name}.${TEST_SERVE_DOMAIN}/`;

async function deploy(key: string | null, query: string, body: string, type = "application/json") {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body,
      headers: { "content-type": type, ...(key ? bearer(key) : {}) },
      ip: nextIp(),
    }),
    noParams,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const files = (f: Record<string, string>) => JSON.stringify({ files: f });

async function append(key: string, slug: string, query: string, f: Record<string, string>) {
  const res = await appendPOST(
    apiRequest(`/deploy/${slug}${query}`, {
      method: "POST",
      body: files(f),
      headers: { "content-type": "application/json", ...bearer(key) },
      ip: nextIp(),
    }),
    { params: Promise.resolve({ slug }) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function aliasesOf(key: string, slug: string) {
  const res = await aliasesRoute.GET(apiRequest(`/drops/${slug}/aliases`, { headers: bearer(key) }), {
    params: Promise.resolve({ slug }),
  });
  return ((await res.json()) as { aliases: { name: string; version: number }[] }).aliases;
}

describe("every deploy answer carries promoted and live_version", () => {
  it("anonymous HTML, an account's files, a named first deploy, replace, unchanged, staged and an append", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const answers: Record<string, unknown>[] = [];
    const take = (r: { status: number; body: Record<string, unknown> }) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      answers.push(r.body);
      return r.body;
    };
    expect(take(await deploy(null, "", "<p>anon</p>", "text/html"))).toMatchObject({ promoted: true, live_version: 1 });
    expect(take(await deploy(apiKey, "", files({ "index.html": "a" })))).toMatchObject({
      promoted: true,
      live_version: 1,
    });
    const name = `da-${Math.random().toString(36).slice(2, 8)}`;
    const first = take(await deploy(apiKey, `?name=${name}`, files({ "index.html": "1" })));
    const slug = first.slug as string;
    expect(take(await deploy(apiKey, `?name=${name}`, files({ "index.html": "2" })))).toMatchObject({
      version: 2,
      promoted: true,
      live_version: 2,
    });
    expect(take(await deploy(apiKey, `?name=${name}`, files({ "index.html": "2" })))).toMatchObject({
      unchanged: true,
      version: 2,
      promoted: true,
      live_version: 2,
    });
    expect(take(await deploy(apiKey, `?name=${name}&promote=false`, files({ "index.html": "3" })))).toMatchObject({
      version: 3,
      promoted: false,
      live_version: 2,
    });
    const appended = await append(apiKey, slug, "", { "b.html": "b" });
    expect(appended.status).toBe(200);
    expect(appended.body).toMatchObject({ version: 4, promoted: true, live_version: 4 });
    expect(appendResponseSchema.parse(appended.body)).toBeTruthy();
    for (const a of answers) {
      expect(typeof a.promoted).toBe("boolean");
      expect(Number.isInteger(a.live_version)).toBe(true);
      // Without ?alias= an answer names no alias.
      expect(a).not.toHaveProperty("alias");
      deployResponseSchema.parse(a);
    }
  });
});

describe("?alias= in the deploy answer", () => {
  it("a staged named redeploy and an append name the alias and its URL; it serves the new version", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const name = `dz-${Math.random().toString(36).slice(2, 8)}`;
    const first = await deploy(apiKey, `?name=${name}`, files({ "index.html": "one" }));
    const slug = first.body.slug as string;
    const staged = await deploy(apiKey, `?name=${name}&promote=false&alias=pr-7`, files({ "index.html": "pr" }));
    expect(staged.status).toBe(200);
    expect(staged.body).toMatchObject({
      version: 2,
      promoted: false,
      live_version: 1,
      alias: { name: "pr-7", url: aliasUrl(slug, "pr-7") },
    });
    deployResponseSchema.parse(staged.body);
    expect(await served(`${slug}---pr-7`)).toBe("pr");
    expect(await served(slug)).toBe("one");
    const appended = await append(apiKey, slug, "?alias=review", { "b.html": "b" });
    expect(appended.body).toMatchObject({ version: 3, alias: { name: "review", url: aliasUrl(slug, "review") } });
    appendResponseSchema.parse(appended.body);
    // A new account drop with ?alias= points it at version 1.
    const fresh = await deploy(apiKey, "?alias=first", files({ "index.html": "fresh" }));
    expect(fresh.body).toMatchObject({ version: 1, alias: { name: "first" } });
    expect(await served(`${fresh.body.slug as string}---first`)).toBe("fresh");
  });
});

describe.each(CLIENT_FLAVOURS)(
  "MCP deploy tools take alias; deploy_directory takes promote and alias (%s)",
  (flavour) => {
    it("deploy_named and append_files point the alias and say so; the result validates against the tool's schema", async () => {
      const { apiKey } = await accountWithKey(t.ctx, "pro");
      const agent = await connectAgent(flavour, { ip: nextIp(), credential: apiKey });
      const name = `dm-${flavour.replace(/\W/g, "")}-${Math.random().toString(36).slice(2, 6)}`;
      const first = await agent.call("deploy_named", { name, files: { "index.html": "one" } });
      const slug = (first.structuredContent as { slug: string }).slug;
      const staged = await agent.call("deploy_named", {
        name,
        files: { "index.html": "two" },
        promote: false,
        alias: "staging",
      });
      expect(staged.isError, resultText(staged)).toBe(false);
      expect(staged.structuredContent).toMatchObject({
        version: 2,
        promoted: false,
        live_version: 1,
        alias: { name: "staging", url: aliasUrl(slug, "staging") },
      });
      expect(resultText(staged)).toContain(`Alias staging now serves version 2: ${aliasUrl(slug, "staging")}`);
      expect(await served(`${slug}---staging`)).toBe("two");
      expect(await served(slug)).toBe("one");

      const appended = await agent.call("append_files", { slug, files: { "a.html": "a" }, alias: "staging" });
      expect(appended.isError, resultText(appended)).toBe(false);
      expect(appended.structuredContent).toMatchObject({ version: 3, alias: { name: "staging" } });
      expect((await aliasesOf(apiKey, slug)).find((a) => a.name === "staging")?.version).toBe(3);

      // A bad alias name is refused before anything is written.
      const bad = await agent.call("deploy_named", { name, files: { "index.html": "x" }, alias: "v9" });
      expect(bad.isError).toBe(true);
      expect(resultText(bad)).toContain("invalid_name");
      expect(await served(slug)).toBe("one");
      await agent.close();
    });

    it("deploy_directory's URL stages the named drop's version and points the alias; anonymous with alias is refused", async () => {
      const { apiKey } = await accountWithKey(t.ctx, "pro");
      const agent = await connectAgent(flavour, { ip: nextIp(), credential: apiKey });
      const name = `dd-${flavour.replace(/\W/g, "")}-${Math.random().toString(36).slice(2, 6)}`;
      const first = await agent.call("deploy_named", { name, files: { "index.html": "live" } });
      const slug = (first.structuredContent as { slug: string }).slug;
      const grant = await agent.call("deploy_directory", { dir: "dist", name, promote: false, alias: "pr-1" });
      expect(grant.isError, resultText(grant)).toBe(false);
      const url = (grant.structuredContent as { url: string }).url;
      const token = url.split("/").pop()!;
      const res = await onceRoute.POST(
        apiRequest(`/deploy/once/${token}`, {
          method: "POST",
          body: files({ "index.html": "staged" }),
          headers: { "content-type": "application/json" },
          ip: nextIp(),
        }),
        { params: Promise.resolve({ token }) },
      );
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({
        slug,
        version: 2,
        promoted: false,
        live_version: 1,
        alias: { name: "pr-1", url: aliasUrl(slug, "pr-1") },
      });
      expect(await served(slug)).toBe("live");
      expect(await served(`${slug}---pr-1`)).toBe("staged");
      expect(await served(`${slug}---v2`)).toBe("staged");

      const badName = await agent.call("deploy_directory", { name, alias: "a--b" });
      expect(badName.isError).toBe(true);
      expect(resultText(badName)).toContain("invalid_name");
      await agent.close();

      const anon = await connectAgent(flavour, { ip: nextIp() });
      const before = await countDrops(t.ctx.db);
      const refused = await anon.call("deploy_directory", { alias: "preview" });
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toContain("invalid_request");
      const refusedHtml = await anon.call("deploy_html", { html: "<p>x</p>", alias: "preview" });
      expect(refusedHtml.isError).toBe(true);
      expect(await countDrops(t.ctx.db)).toBe(before);
      await anon.close();
    });
  },
);
