import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startApp, type RunningApp } from "../support/app-server";
import { connectHttp, type CallResult } from "../support/mcp";
import { launchChromium, scriptErrors } from "../support/browser";
import { axeViolations } from "../support/a11y";

// The deploy preview's HTML (the ui:// resource) rendered in Chromium the way an MCP Apps host
// renders it: in a sandboxed frame without same-origin rights, speaking the extension's
// postMessage protocol (ui/initialize, then ui/notifications/tool-result with the tool's real
// result). The view shows the URL, expiry, version, the claim token, a labelled QR code and the
// drop in a nested sandboxed frame, and passes axe. The built app answers all of it: the MCP
// calls over HTTP, and the drop in the nested frame from its own drop host (<slug>.localhost:
// <port>, which Chromium resolves to loopback), as an MCP host's user would load it.

const URI = "ui://dropsite/deploy-preview.html";
let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  app = await startApp({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000" });
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** A minimal MCP Apps host page: answers ui/initialize and then sends the tool result. */
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>
<body><main><h1>Test host</h1><iframe id="view" title="Deploy preview" sandbox="allow-scripts allow-forms" style="width:760px;height:900px"></iframe></main>
<script>
window.hostLog = [];
window.startView = (html, result) => {
  const frame = document.getElementById("view");
  window.addEventListener("message", (ev) => {
    if (ev.source !== frame.contentWindow) return;
    const m = ev.data;
    window.hostLog.push(m.method || "response");
    const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: "2.0", id: m.id, result }, "*");
    if (m.method === "ui/initialize") {
      reply({ protocolVersion: m.params.protocolVersion, hostInfo: { name: "test-host", version: "1.0.0" }, hostCapabilities: { openLinks: {} }, hostContext: { theme: "light" } });
    } else if (m.method === "ui/notifications/initialized") {
      frame.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result }, "*");
    } else if (m.id !== undefined && m.method) {
      reply({});
    }
  });
  frame.srcdoc = html;
};
</script></body></html>`;

async function render(page: Page, result: CallResult): Promise<void> {
  const client = await connectHttp(app.baseUrl);
  const html = ((await client.readResource({ uri: URI })).contents[0] as { text: string }).text;
  await client.close();
  await page.setContent(HOST);
  await page.evaluate(
    ([h, r]) => (window as unknown as { startView: (h: string, r: unknown) => void }).startView(h, r),
    [html, result] as const,
  );
}

describe("the deploy preview in a browser", () => {
  it("shows an anonymous deploy: URL, expiry, claim token, a labelled QR code and the drop in a sandboxed frame; passes axe", async () => {
    const client = await connectHttp(app.baseUrl);
    const result = (await client.callTool({
      name: "deploy_html",
      arguments: { html: '<!doctype html><html lang="en"><title>Hi</title><main><h1>Hello from the drop</h1></main>' },
    })) as CallResult;
    await client.close();
    const d = result.structuredContent as { url: string; claim_token: string; expires_at: string };
    expect(new URL(d.url).host).toMatch(new RegExp(`^[a-z0-9-]+\\.localhost:${app.port}$`));
    const page = await (await browser.newContext({ viewport: { width: 800, height: 1000 } })).newPage();
    const errors = scriptErrors(page);
    await render(page, result);
    const view = page.frameLocator("#view");
    await expect.poll(() => view.locator("#result").isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await view.locator("h1").textContent()).toBe("Your site is live");
    expect(await view.locator("#status").textContent()).toBe("Deployed, version 1.");
    expect(await view.locator("#url").textContent()).toBe(d.url);
    expect(await view.locator("#url").getAttribute("href")).toBe(d.url);
    expect(await view.locator("#expires").getAttribute("datetime")).toBe(d.expires_at);
    expect(await view.locator("#token").textContent()).toBe(d.claim_token);
    expect(await view.locator("#claim").isVisible()).toBe(true);
    expect(await view.getByRole("img", { name: `QR code for ${d.url}` }).count()).toBe(1);
    expect(await view.locator("#qr-caption").textContent()).toBe(`Scan to open ${d.url}`);
    expect((await view.locator("#qr path").getAttribute("d"))?.length).toBeGreaterThan(100);
    const frame = view.locator("#frame");
    expect(await frame.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
    expect(await frame.getAttribute("title")).toBe(`Preview of ${d.url}`);
    await expect
      .poll(
        () =>
          view
            .frameLocator("#frame")
            .locator("h1")
            .textContent()
            .catch(() => null),
        { timeout: 15_000 },
      )
      .toBe("Hello from the drop");
    expect(await page.evaluate(() => (window as unknown as { hostLog: string[] }).hostLog.slice(0, 2))).toEqual([
      "ui/initialize",
      "ui/notifications/initialized",
    ]);
    expect(await axeViolations(page, "deploy preview")).toEqual([]);
    expect(errors).toEqual([]);
    // axe reaches into the host's sandboxed frame: an untitled drop frame would be reported.
    await view.locator("#frame").evaluate((el) => el.removeAttribute("title"));
    expect((await axeViolations(page, "deploy preview")).join("\n")).toMatch(/frame-title/);
    await page.context().close();
  }, 60_000);

  it("a failed deploy shows the error text and no preview", async () => {
    const client = await connectHttp(app.baseUrl);
    const result = (await client.callTool({ name: "deploy_html", arguments: { html: "" } })) as CallResult;
    await client.close();
    const page = await (await browser.newContext()).newPage();
    await render(page, result);
    const view = page.frameLocator("#view");
    await expect.poll(() => view.locator("h1").textContent(), { timeout: 15_000 }).toBe("Deploy failed");
    expect(await view.locator("#status").textContent()).toMatch(/^Error \(invalid_request\): /);
    expect(await view.locator("#result").isVisible()).toBe(false);
    expect(await axeViolations(page, "deploy preview, failed")).toEqual([]);
    await page.context().close();
  }, 60_000);
});
