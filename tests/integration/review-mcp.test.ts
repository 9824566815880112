import { describe, expect, it } from "vitest";
import { accountWithKey } from "../support/accounts";
import { suiteContext } from "../support/context";
import { CLIENT_FLAVOURS, connectAgent, resultText } from "../support/mcp";
import { reviewCall, tokenOf } from "../support/review";
import { teamKeyOf, teamWith } from "../support/teams";

// Review for agents through both official clients (SDK 1.x validates structuredContent against
// each tool's outputSchema): create_review_link, list_comments, reply_comment, resolve_comment,
// open_comments in deploy results, and a review link's token reaching no MCP tool.

const t = suiteContext({}, { freshLimiter: true });
let ipN = 0;
const ip = () => `198.51.100.${++ipN + 100}`;

describe.each(CLIENT_FLAVOURS)("MCP review (%s)", (flavour) => {
  it("a link from create_review_link is where a person comments; the agent lists, replies, resolves, and sees open_comments", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const agent = await connectAgent(flavour, { ip: ip(), credential: apiKey });
    const name = `rm-${flavour.replace(/\W/g, "")}`;
    const first = await agent.call("deploy_named", { name, files: { "index.html": "<h1>Hi</h1>" } });
    expect(first.structuredContent).toMatchObject({ open_comments: 0 });
    const slug = (first.structuredContent as { slug: string }).slug;

    const link = await agent.call("create_review_link", { slug, label: "client", expires_in_days: 3 });
    expect(link.isError, resultText(link)).toBe(false);
    const url = (link.structuredContent as { url: string }).url;
    expect(url).toMatch(/\/review\/rl_[A-Za-z0-9_-]{43}$/);
    expect(resultText(link)).toContain(url);
    const token = tokenOf(url);

    const said = await reviewCall("POST", `/drops/${slug}/comments`, token, {
      version: 1,
      path: "/",
      body: "Make the <h1> blue",
      pin: { width: 390, x: 20, y: 30 },
      name: "Ana",
    });
    expect(said.status).toBe(201);
    const id = said.body!.id!;

    const listed = await agent.call("list_comments", { slug });
    expect(listed.isError, resultText(listed)).toBe(false);
    expect(listed.structuredContent).toMatchObject({
      total: 1,
      comments: [
        {
          id,
          version: 1,
          path: "/",
          pin: { width: 390, x: 20, y: 30 },
          body: "Make the <h1> blue",
          author: { kind: "review_link", name: "Ana" },
          status: "open",
          replies: [],
        },
      ],
    });
    expect(resultText(listed)).toContain(id);
    expect(resultText(listed)).toContain('"Make the <h1> blue"');
    expect(resultText(listed)).toContain("phone");

    const again = await agent.call("deploy_named", { name, files: { "index.html": "<h1 style=color:blue>Hi</h1>" } });
    expect(again.structuredContent).toMatchObject({ version: 2, open_comments: 1 });

    const reply = await agent.call("reply_comment", { slug, comment_id: id, body: "Done in version 2." });
    expect(reply.isError, resultText(reply)).toBe(false);
    expect(reply.structuredContent).toMatchObject({ body: "Done in version 2.", author: { kind: "account" } });

    const resolved = await agent.call("resolve_comment", { slug, comment_id: id });
    expect(resolved.isError, resultText(resolved)).toBe(false);
    expect(resolved.structuredContent).toMatchObject({
      id,
      status: "resolved",
      replies: [{ body: "Done in version 2." }],
    });
    expect((await agent.call("list_comments", { slug })).structuredContent).toMatchObject({ total: 0, comments: [] });
    expect((await agent.call("list_comments", { slug, status: "all" })).structuredContent).toMatchObject({ total: 1 });
    const reopened = await agent.call("resolve_comment", { slug, comment_id: id, reopen: true });
    expect(reopened.structuredContent).toMatchObject({ status: "open" });

    // Refusals: an unknown thread, another account's drop, bad arguments.
    const missing = await agent.call("resolve_comment", { slug, comment_id: "cmt_nope" });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toContain("not_found");
    const other = await accountWithKey(t.ctx, "pro");
    const stranger = await connectAgent(flavour, { ip: ip(), credential: other.apiKey });
    const theirs = await stranger.call("list_comments", { slug });
    expect(theirs.isError).toBe(true);
    expect(resultText(theirs)).toContain("not_found");
    const badDays = await agent.call("create_review_link", { slug, expires_in_days: 31 });
    expect(badDays.isError).toBe(true);
    await stranger.close();

    // The review link's token is no credential of the MCP endpoint.
    let refused: string;
    try {
      const holder = await connectAgent(flavour, { ip: ip(), credential: token });
      const r = await holder.call("list_comments", { slug });
      expect(r.isError).toBe(true);
      refused = resultText(r);
      await holder.close();
    } catch (err) {
      refused = String(err);
    }
    expect(refused).toMatch(/auth_required|401/);
    await agent.close();
  });

  it("a team's viewer lists and replies but may not resolve or mint links", async () => {
    const { slug: team, owner, people } = await teamWith(t.ctx, ["viewer"]);
    const teamKey = await teamKeyOf(t.ctx, owner, team);
    const viewerKey = await teamKeyOf(t.ctx, people[0]!, team, "viewer");
    const ownerAgent = await connectAgent(flavour, { ip: ip(), credential: teamKey });
    const deployed = await ownerAgent.call("deploy_html", { html: "<p>team</p>" });
    const slug = (deployed.structuredContent as { slug: string }).slug;
    const made = await reviewCall("POST", `/drops/${slug}/comments`, teamKey, { version: 1, path: "/", body: "x" });
    const viewer = await connectAgent(flavour, { ip: ip(), credential: viewerKey });
    expect((await viewer.call("list_comments", { slug })).structuredContent).toMatchObject({ total: 1 });
    expect((await viewer.call("reply_comment", { slug, comment_id: made.body!.id!, body: "seen" })).isError).toBe(
      false,
    );
    for (const [name, args] of [
      ["resolve_comment", { slug, comment_id: made.body!.id! }],
      ["create_review_link", { slug }],
    ] as const) {
      const r = await viewer.call(name, args);
      expect(r.isError, name).toBe(true);
      expect(resultText(r)).toContain("forbidden");
    }
    await viewer.close();
    await ownerAgent.close();
  });
});
