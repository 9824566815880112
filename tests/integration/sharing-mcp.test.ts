import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findDropBySlug } from "@/lib/db/queries";
import { suiteContext } from "../support/context";
import { CLIENT_FLAVOURS, connectAgent, resultText } from "../support/mcp";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { cookiePair, MARKER, sharedDrop, visit } from "../support/sharing";

// Sharing for agents through the official MCP clients: set_access with mode "emails" and its
// allow list, and create_share_link whose URL opens the drop.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@example.test" }), { freshLimiter: true });
let ipN = 40;

describe.each(CLIENT_FLAVOURS)("MCP sharing (%s)", (flavour) => {
  it("set_access takes emails with its list; create_share_link makes a link that opens the drop", async () => {
    const { owner, slug } = await sharedDrop(t);
    const agent = await connectAgent(flavour, { ip: `198.51.100.${++ipN}`, credential: owner.apiKey });
    const set = await agent.call("set_access", { slug, mode: "emails", allow: ["Ana@X.org", "@client.com"] });
    expect(set.isError).toBe(false);
    expect(set.structuredContent).toEqual({ slug, mode: "emails", allow: ["ana@x.org", "@client.com"] });
    expect(resultText(set)).toContain("ana@x.org, @client.com");
    expect((await findDropBySlug(t.ctx.db, slug))!.accessAllow).toEqual(["ana@x.org", "@client.com"]);
    const bad = await agent.call("set_access", { slug, mode: "emails", allow: ["not an address"] });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toContain("invalid_request");

    const link = await agent.call("create_share_link", { slug, expires_in_hours: 48 });
    expect(link.isError).toBe(false);
    const url = new URL((link.structuredContent as { url: string }).url);
    expect(resultText(link)).toContain(url.href);
    const opened = await visit(t, slug, url.pathname + url.search);
    expect(opened.status).toBe(302);
    const page = await visit(t, slug, "/", { headers: { cookie: cookiePair(opened) } });
    expect(page.text).toContain(MARKER);
    const refused = await agent.call("create_share_link", { slug, expires_in_hours: 0 });
    expect(refused.isError).toBe(true);
    await agent.close();
  });
});
