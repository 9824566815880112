import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Route } from "playwright-core";
import { serveRequest } from "@/lib/serve";
import { axeViolations } from "../support/a11y";
import { launchChromium, VIEWPORTS } from "../support/browser";
import { suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { sharedDrop } from "../support/sharing";

// The ask page and its "check your inbox" answer, in real
// Chromium at 1280 and 390 px with axe (WCAG 2.2 AA): the browser's requests to the drop host are
// answered by the serve path of this suite's context (lib/serve's Fetch entry), cookies and all.

let smtp: SmtpRecorder;
let browser: Browser;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser.close();
  await smtp.close();
});
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@example.test" }), { freshLimiter: true });

async function answer(route: Route): Promise<void> {
  const r = route.request();
  const headers = new Headers(await r.allHeaders());
  headers.set("x-dropsite-socket-ip", "198.51.100.77");
  headers.set("host", new URL(r.url()).host);
  const posted = r.method() === "POST" ? r.postDataBuffer() : null;
  const body = posted ? new Uint8Array(posted) : null;
  const res = await serveRequest(t.ctx, new Request(r.url(), { method: r.method(), headers, body }));
  const out = Buffer.from(await res.arrayBuffer());
  const h: Record<string, string> = {};
  res.headers.forEach((v, k) => (h[k] = v));
  await route.fulfill({ status: res.status, headers: h, body: out });
}

describe("the ask page in Chromium", () => {
  for (const [label, size] of Object.entries(VIEWPORTS))
    it(`asks and answers with no axe violation at ${size.width} px (${label})`, async () => {
      const { slug } = await sharedDrop(t, ["ana@x.org"]);
      const context = await browser.newContext({ viewport: size });
      await context.route((u) => u.hostname.startsWith(`${slug}.`), answer);
      const page = await context.newPage();
      const base = `http://${slug}.${TEST_SERVE_DOMAIN}`;
      const asked = await page.goto(`${base}/about`);
      expect(asked!.status()).toBe(401);
      expect(await page.title()).toBe("Sign in to view this site");
      expect(await axeViolations(page, "ask page")).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      const before = smtp.messages.length;
      await page.getByLabel("Email address").fill("ana@x.org");
      await page.getByRole("button", { name: "Email me a link" }).click();
      await page.waitForURL(/sign-in$/);
      expect(await page.title()).toBe("Check your inbox");
      expect(await axeViolations(page, "check your inbox")).toEqual([]);
      // The mail went to the address (the link itself is opened in sharing-emails.test.ts).
      expect((await smtp.waitFor("ana@x.org", { after: before })).to).toEqual(["ana@x.org"]);
      await context.close();
    });
});
