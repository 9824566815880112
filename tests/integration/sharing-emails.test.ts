import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRequest } from "@/lib/serve";
import { setAccess } from "@/lib/drops/access";
import { findDropBySlug } from "@/lib/db/queries";
import type { ApiError } from "@/lib/errors";
import { SIGNIN_LINK_SECONDS, SIGNIN_MAILS_PER_ADDRESS_PER_HOUR, SIGNIN_MAILS_PER_DROP_PER_HOUR } from "@/lib/plans";
import { SIGNIN_PATH } from "@/lib/serve/emails";
import { dropRequest, suiteContext } from "../support/context";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { askFor, cookiePair, mailedLink, MARKER, putAccess, sharedDrop, visit, type Visit } from "../support/sharing";

// Emails-only drops (DESIGN "Sharing by identity"), through the real access route, the serve
// path and a real SMTP server in process that records every message.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "Dropsite <no-reply@example.test>" }), {
  freshLimiter: true,
});

const settle = () => new Promise((r) => setTimeout(r, 300));

function expectAsked(v: Visit, what: string): void {
  expect(v.status, what).toBe(401);
  expect(v.text, what).not.toContain(MARKER);
  expect(v.text, what).toContain(`action="${SIGNIN_PATH}"`);
  expect(v.headers.get("cache-control"), what).toBe("private, no-store");
  expect(v.headers.get("x-robots-tag"), what).toBe("noindex");
  expect(v.text, what).toContain('<meta name="robots" content="noindex">');
  expect(v.headers.get("set-cookie"), what).toBeNull();
  expect(v.headers.get("etag"), what).toBeNull();
}

describe("PUT /drops/{slug}/access with mode emails", () => {
  it("takes 1 to 100 addresses and @domains, stores them in lower case once each, and reports access emails", async () => {
    const { owner, slug } = await sharedDrop(t);
    const set = await putAccess(owner.apiKey, slug, {
      mode: "emails",
      allow: ["Ana@X.org", "@Client.com", "ana@x.org"],
    });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ slug, mode: "emails", allow: ["ana@x.org", "@client.com"] });
    const row = (await findDropBySlug(t.ctx.db, slug))!;
    expect(row.accessMode).toBe("emails");
    expect(row.accessAllow).toEqual(["ana@x.org", "@client.com"]);
    const hundred = Array.from({ length: 100 }, (_, i) => `p${i}@x.org`);
    expect((await putAccess(owner.apiKey, slug, { mode: "emails", allow: hundred })).status).toBe(200);
  });

  it("refuses an empty list, 101 entries, and entries that are neither address nor @domain, changing nothing", async () => {
    const { owner, slug } = await sharedDrop(t, ["ana@x.org"]);
    for (const allow of [
      [],
      Array.from({ length: 101 }, (_, i) => `p${i}@x.org`),
      ["ana"],
      ["@"],
      ["@client"],
      ["a b@x.org"],
      ["ana@x..org"],
      "ana@x.org",
    ]) {
      const r = await putAccess(owner.apiKey, slug, { mode: "emails", allow });
      expect(r.status, JSON.stringify(allow)).toBe(400);
      expect(r.json.code).toBe("invalid_request");
    }
    expect((await findDropBySlug(t.ctx.db, slug))!.accessAllow).toEqual(["ana@x.org"]);
  });

  it("without SMTP_URL or MAIL_FROM the mode is refused with 400 invalid_request naming both, and nothing changes", async () => {
    const { owner, slug } = await sharedDrop(t);
    for (const unset of [
      { SMTP_URL: undefined },
      { MAIL_FROM: undefined },
      { SMTP_URL: undefined, MAIL_FROM: undefined },
    ]) {
      const ctx = { ...t.ctx, env: { ...t.ctx.env, ...unset } };
      const err = (await setAccess(ctx, owner.account, slug, { mode: "emails", allow: ["a@x.org"] }).catch(
        (e: unknown) => e,
      )) as ApiError;
      expect(err.code).toBe("invalid_request");
      expect(err.hint).toContain("SMTP_URL");
      expect(err.hint).toContain("MAIL_FROM");
    }
    expect((await findDropBySlug(t.ctx.db, slug))!.accessMode).toBe("public");
  });
});

describe("the ask page and the one-time sign-in link", () => {
  it("asks on every path, the live host and preview hosts alike, with none of the drop", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    for (const [label, path] of [
      [slug, "/"],
      [slug, "/about"],
      [slug, "/style.css"],
      [slug, "/missing"],
      [`${slug}---v1`, "/"],
    ] as const)
      expectAsked(await visit(t, label, path), `${label}${path}`);
    expectAsked(await visit(t, slug, "/", { method: "HEAD" }), "HEAD");
  });

  it("the link arrives at an allowed address and at no other; both get the same answer", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org", "@client.com"]);
    const start = smtp.messages.length;
    const outsider = await askFor(t, slug, "eve@x.org", "/about");
    const lookalike = await askFor(t, slug, "eve@client.com.evil.org", "/about");
    const sub = await askFor(t, slug, "eve@sub.client.com", "/about");
    const allowed = await askFor(t, slug, "Ana@X.org", "/about");
    for (const v of [outsider, lookalike, sub]) {
      expect(v.status).toBe(allowed.status);
      expect(v.text).toBe(allowed.text);
      expect(v.headers.get("set-cookie")).toBe(allowed.headers.get("set-cookie"));
      expect([...v.headers.keys()].sort()).toEqual([...allowed.headers.keys()].sort());
    }
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("cache-control")).toBe("private, no-store");
    const mail = await smtp.waitFor("ana@x.org", { after: start });
    expect(mail.from).toBe("no-reply@example.test");
    await askFor(t, slug, "Bob@Client.com");
    await smtp.waitFor("bob@client.com", { after: start });
    await settle();
    expect(smtp.messages.slice(start).map((m) => m.to)).toEqual([["ana@x.org"], ["bob@client.com"]]);
  });

  it("the link is on the drop host, works once for a host-only cookie, and the cookie opens the drop there only", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    const link = await mailedLink(t, smtp, slug, "ana@x.org", "/about");
    expect(link.host).toBe(`${slug}.drops.localhost:3000`);
    const opened = await visit(t, slug, link.path);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/about");
    const set = opened.headers.get("set-cookie")!;
    expect(set).toMatch(/; Path=\//);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax/);
    expect(set).toMatch(/; Max-Age=604800/);
    expect(set).not.toMatch(/domain=/i);
    const cookie = cookiePair(opened);
    const page = await visit(t, slug, "/about", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(MARKER);
    expect(page.headers.get("cache-control")).toMatch(/^private/);
    // Once: the second open (a mail scanner got there first) offers a new link, sets nothing.
    const again = await visit(t, slug, link.path);
    expectAsked(again, "spent link");
    expect(again.text).toContain("used already or has expired");
    // Host-only: the cookie opens no other host of the drop.
    expectAsked(await visit(t, `${slug}---v1`, "/about", { headers: { cookie } }), "cookie on a preview host");
    // And the link opens nothing on another host of the drop.
    const other = await mailedLink(t, smtp, slug, "ana@x.org");
    expectAsked(await visit(t, `${slug}---v1`, other.path), "link on a preview host");
  });

  it("a link no longer opens after 15 minutes", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    const link = await mailedLink(t, smtp, slug, "ana@x.org");
    t.clock.advance(SIGNIN_LINK_SECONDS + 1);
    expectAsked(await visit(t, slug, link.path), "expired link");
    const fresh = await mailedLink(t, smtp, slug, "ana@x.org");
    t.clock.advance(SIGNIN_LINK_SECONDS - 5);
    expect((await visit(t, slug, fresh.path)).status).toBe(302);
  });

  it("taking an address off the list signs that viewer out at once; viewers still on it stay; a link mailed before opens nothing", async () => {
    const { owner, slug } = await sharedDrop(t, ["ana@x.org", "bob@x.org"]);
    const ana = cookiePair(await visit(t, slug, (await mailedLink(t, smtp, slug, "ana@x.org")).path));
    const bob = cookiePair(await visit(t, slug, (await mailedLink(t, smtp, slug, "bob@x.org")).path));
    const pending = await mailedLink(t, smtp, slug, "ana@x.org");
    expect((await visit(t, slug, "/", { headers: { cookie: ana } })).status).toBe(200);
    expect((await putAccess(owner.apiKey, slug, { mode: "emails", allow: ["bob@x.org"] })).status).toBe(200);
    expectAsked(await visit(t, slug, "/", { headers: { cookie: ana } }), "removed viewer");
    expectAsked(await visit(t, slug, pending.path), "link mailed before removal");
    const still = await visit(t, slug, "/", { headers: { cookie: bob } });
    expect(still.status).toBe(200);
    expect(still.text).toContain(MARKER);
    // Any change of mode signs everyone out.
    await putAccess(owner.apiKey, slug, { mode: "public" });
    await putAccess(owner.apiKey, slug, { mode: "emails", allow: ["bob@x.org"] });
    expectAsked(await visit(t, slug, "/", { headers: { cookie: bob } }), "after a change of mode");
  });

  it("the answer never waits for SMTP: a mail server that never speaks delays nothing", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const ctx = {
      ...t.ctx,
      env: { ...t.ctx.env, SMTP_URL: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}` },
    };
    const began = Date.now();
    const res = await serveRequest(
      ctx,
      dropRequest(slug, SIGNIN_PATH, {
        method: "POST",
        body: new URLSearchParams({ email: "ana@x.org", path: "/" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-dropsite-socket-ip": "198.51.100.31" },
      }),
    );
    expect(res.status).toBe(200);
    expect(Date.now() - began).toBeLessThan(1500);
    // The mail is under way: the server was reached, and has said nothing.
    const deadline = Date.now() + 5000;
    while (sockets.length === 0 && Date.now() < deadline) await settle();
    expect(sockets.length).toBe(1);
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it("stores no token verbatim", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    const link = await mailedLink(t, smtp, slug, "ana@x.org");
    const token = new URLSearchParams(link.path.split("?")[1]).get("token")!;
    expect(token).toMatch(/^si_/);
    const dump = JSON.stringify(await t.ctx.db.execute("select * from signin_tokens"));
    expect(dump).not.toContain(token);
    expect(dump).toContain("ana@x.org");
  });
});

describe("the mail rates", () => {
  it(`${SIGNIN_MAILS_PER_ADDRESS_PER_HOUR} mails per address per hour, across drops; past it the same answer and no mail`, async () => {
    const a = await sharedDrop(t, ["ana@x.org"]);
    const b = await sharedDrop(t, ["ana@x.org", "bob@x.org"]);
    const start = smtp.messages.length;
    const answers: Visit[] = [];
    for (let i = 0; i < SIGNIN_MAILS_PER_ADDRESS_PER_HOUR; i++) answers.push(await askFor(t, a.slug, "ana@x.org"));
    for (let i = 0; i < SIGNIN_MAILS_PER_ADDRESS_PER_HOUR; i++) await smtp.waitFor("ana@x.org", { after: start + i });
    answers.push(await askFor(t, a.slug, "ana@x.org"));
    answers.push(await askFor(t, b.slug, "ANA@x.org"));
    await askFor(t, b.slug, "bob@x.org");
    await smtp.waitFor("bob@x.org", { after: start });
    await settle();
    const to = smtp.messages.slice(start).map((m) => m.to[0]);
    expect(to.filter((x) => x === "ana@x.org")).toHaveLength(SIGNIN_MAILS_PER_ADDRESS_PER_HOUR);
    for (const v of answers) {
      expect(v.status).toBe(200);
      expect(v.text).toBe(answers[0]!.text);
    }
  });

  it(`${SIGNIN_MAILS_PER_DROP_PER_HOUR} mails per drop per hour`, async () => {
    const { slug } = await sharedDrop(t, ["@many.test"]);
    const start = smtp.messages.length;
    for (let i = 0; i <= SIGNIN_MAILS_PER_DROP_PER_HOUR; i++) await askFor(t, slug, `p${i}@many.test`);
    const deadline = Date.now() + 15_000;
    while (smtp.messages.length - start < SIGNIN_MAILS_PER_DROP_PER_HOUR && Date.now() < deadline) await settle();
    await settle();
    expect(smtp.messages.length - start).toBe(SIGNIN_MAILS_PER_DROP_PER_HOUR);
  });
});
