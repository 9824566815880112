import { describe, expect, it } from "vitest";
import { accountWithKey } from "../support/accounts";
import { dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { CLIENT_FLAVOURS, connectAgent, resultText } from "../support/mcp";
import { serveGET } from "../support/serve";

// MCP and previews, through both official clients (SDK 1.x validates structuredContent against
// the tool's outputSchema): deploy results carry version_url, live_version and promoted;
// deploy_named and append_files take promote: false; rollback_drop is the promote.

const t = suiteContext({}, { freshLimiter: true });
let ipN = 0;
const served = async (label: string) => (await serveGET(dropRequest(label, "/api/serve-drop/"))).text();

describe.each(CLIENT_FLAVOURS)("MCP staged deploys (%s)", (flavour) => {
  it("deploy_named with promote: false stages; append_files builds on live; rollback_drop promotes", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connectAgent(flavour, { ip: `198.51.100.${++ipN}`, credential: apiKey });
    const name = `mp-${flavour.replace(/\W/g, "")}`;
    const first = await agent.call("deploy_named", { name, files: { "index.html": "one" } });
    expect(first.isError).toBe(false);
    const slug = (first.structuredContent as { slug: string }).slug;
    const url = (n: number) => `http://${slug}---v${n}.${TEST_SERVE_DOMAIN}/`;
    expect(first.structuredContent).toMatchObject({ version: 1, live_version: 1, promoted: true, version_url: url(1) });

    const staged = await agent.call("deploy_named", { name, files: { "index.html": "two" }, promote: false });
    expect(staged.isError).toBe(false);
    expect(staged.structuredContent).toMatchObject({
      version: 2,
      live_version: 1,
      promoted: false,
      version_url: url(2),
    });
    expect(resultText(staged)).toContain(`Staged: version 2 is not live`);
    expect(resultText(staged)).toContain(url(2));
    expect(await served(slug)).toBe("one");
    expect(await served(`${slug}---v2`)).toBe("two");

    const appended = await agent.call("append_files", { slug, files: { "a.html": "a" }, promote: false });
    expect(appended.isError).toBe(false);
    expect(appended.structuredContent).toMatchObject({ version: 3, live_version: 1, promoted: false, total_files: 2 });
    expect(await served(`${slug}---v3`)).toBe("one");

    const list = await agent.call("list_versions", { slug });
    expect(list.structuredContent).toMatchObject({
      live_version: 1,
      versions: [
        { version: 3, live: false, version_url: url(3) },
        { version: 2, live: false, version_url: url(2) },
        { version: 1, live: true, version_url: url(1) },
      ],
    });
    const promoted = await agent.call("rollback_drop", { slug, version: 2 });
    expect(promoted.structuredContent).toMatchObject({ live_version: 2 });
    expect(await served(slug)).toBe("two");
    expect((await agent.call("get_drop", { slug })).structuredContent).toMatchObject({
      live_version: 2,
      version_url: url(2),
    });
    const bad = await agent.call("deploy_named", { name, files: { "index.html": "x" }, promote: "no" });
    expect(bad.isError).toBe(true);
    await agent.close();
  });
});

describe.each(CLIENT_FLAVOURS)("MCP aliases (%s)", (flavour) => {
  it("set_alias creates and moves <slug>---<name>, list_aliases lists it, delete_alias ends it; bad input changes nothing", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connectAgent(flavour, { ip: `198.51.100.${++ipN}`, credential: apiKey });
    const name = `ma-${flavour.replace(/\W/g, "")}`;
    const first = await agent.call("deploy_named", { name, files: { "index.html": "one" } });
    const slug = (first.structuredContent as { slug: string }).slug;
    await agent.call("deploy_named", { name, files: { "index.html": "two" }, promote: false });
    const aliasUrl = `http://${slug}---staging.${TEST_SERVE_DOMAIN}/`;

    const set = await agent.call("set_alias", { slug, name: "staging", version: 2 });
    expect(set.isError).toBe(false);
    expect(set.structuredContent).toEqual({ name: "staging", version: 2, url: aliasUrl });
    expect(resultText(set)).toContain(aliasUrl);
    expect(await served(`${slug}---staging`)).toBe("two");
    expect(await served(slug)).toBe("one");

    const moved = await agent.call("set_alias", { slug, name: "staging", version: 1 });
    expect(moved.structuredContent).toMatchObject({ version: 1 });
    expect(await served(`${slug}---staging`)).toBe("one");

    const listed = await agent.call("list_aliases", { slug });
    expect(listed.structuredContent).toMatchObject({ aliases: [{ name: "staging", version: 1, url: aliasUrl }] });

    // A version selector is no alias name, an unknown version is not_found: nothing changes.
    const refused = await agent.call("set_alias", { slug, name: "v2", version: 2 });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain("invalid_name");
    const unknown = await agent.call("set_alias", { slug, name: "next", version: 99 });
    expect(unknown.isError).toBe(true);
    expect(resultText(unknown)).toContain("not_found");
    expect((await agent.call("list_aliases", { slug })).structuredContent).toMatchObject({
      aliases: [{ name: "staging" }],
    });

    const deleted = await agent.call("delete_alias", { slug, name: "staging" });
    expect(deleted.structuredContent).toEqual({ deleted: "staging" });
    expect(await served(`${slug}---staging`)).toContain("No preview named staging");
    const again = await agent.call("delete_alias", { slug, name: "staging" });
    expect(again.isError).toBe(true);
    expect(resultText(again)).toContain("not_found");
    await agent.close();
  });
});
