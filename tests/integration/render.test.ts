import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as renderRoute from "@/app/drops/[slug]/render/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as previewRoute from "@/app/previews/[file]/route";
import * as limitsRoute from "@/app/limits/route";
import * as onceRoute from "@/app/deploy/once/[token]/route";
import { browserFor } from "@/lib/render/browser";
import { limits } from "@/lib/plans";
import { drops } from "@/lib/db/schema";
import type { RenderResult } from "@/lib/schemas";
import { apiRequest } from "../support/context";
import { pngSize, renderSuite } from "../support/render";
import { accountWithKey, bearer } from "../support/accounts";
import { freePort } from "../support/net";
import { CHROMIUM } from "../support/browser";
import { CLIENT_FLAVOURS, connectAgent } from "../support/mcp";

// The render check with the real Chromium: drops served by the data plane on a loopback port
// (SERVE_DOMAIN drops.localhost:<port>), opened through the containment proxy.

const suite = renderSuite();
let ipN = 0;
const nextIp = () => `198.51.100.${++ipN}`;

const noParams = { params: Promise.resolve({}) };
const slugParams = (slug: string) => ({ params: Promise.resolve({ slug }) });

type DeployAnswer = { slug: string; url: string; render?: RenderResult | Record<string, unknown> };

async function deploy(
  files: Record<string, string>,
  opts: { query?: string; key?: string; ip?: string } = {},
): Promise<{ status: number; body: DeployAnswer & Record<string, unknown> }> {
  const res = await deployPOST(
    apiRequest(`/deploy${opts.query ?? "?render=1"}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...(opts.key ? bearer(opts.key) : {}) },
      ip: opts.ip ?? nextIp(),
    }),
    noParams,
  );
  return { status: res.status, body: (await res.json()) as DeployAnswer & Record<string, unknown> };
}

const renderOf = (d: { body: DeployAnswer }) => d.body.render as RenderResult;

async function preview(url: string | null): Promise<Response> {
  expect(url).toMatch(/^http:\/\/localhost:3000\/previews\/[0-9a-f]{32}\.png$/);
  const file = new URL(url!).pathname.split("/").pop()!;
  return previewRoute.GET(apiRequest(`/previews/${file}`), { params: Promise.resolve({ file }) });
}

describe("what the check reports", () => {
  it("a console error, a 404 asset and a thrown exception each give problems", async () => {
    const d = await deploy({
      "index.html":
        '<!doctype html><title>Broken</title><h1>Hi</h1><img src="/missing-font.png" alt="">' +
        '<script>console.error("boom from the page")</script><script>throw new Error("kaboom")</script>',
    });
    expect(d.status).toBe(200);
    const r = renderOf(d);
    expect(r.status).toBe("problems");
    expect(r.http_status).toBe(200);
    expect(r.title).toBe("Broken");
    expect(r.url).toBe(d.body.url);
    expect(r.console_errors.map((e) => e.text)).toContain("boom from the page");
    expect(r.console_errors.find((e) => e.text === "boom from the page")?.location).toContain(d.body.url);
    expect(r.page_errors.join("\n")).toContain("kaboom");
    expect(r.failed_requests).toContainEqual({ url: `${d.body.url}missing-font.png`, status: 404 });
    expect(r.blank).toBe(false);
  });

  it("a clean page is ok, with viewport PNGs of exactly 1280×800 and 390×844", async () => {
    const d = await deploy({
      "index.html": '<!doctype html><title>Fine</title><link rel="stylesheet" href="s.css"><p>All well.</p>',
      "s.css": "body{background:#eef;height:3000px}",
    });
    const r = renderOf(d);
    expect(r).toMatchObject({
      status: "ok",
      http_status: 200,
      title: "Fine",
      console_errors: [],
      page_errors: [],
      failed_requests: [],
      blank: false,
    });
    expect(r.load_ms).toBeGreaterThanOrEqual(0);
    const desktop = await preview(r.screenshots.desktop);
    expect(desktop.status).toBe(200);
    expect(desktop.headers.get("content-type")).toBe("image/png");
    expect(desktop.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(pngSize(new Uint8Array(await desktop.arrayBuffer()))).toEqual({ width: 1280, height: 800 });
    const phone = await preview(r.screenshots.phone);
    expect(pngSize(new Uint8Array(await phone.arrayBuffer()))).toEqual({ width: 390, height: 844 });
  });

  it("a staged deploy (promote=false) is checked at its version URL, not at the live host", async () => {
    const { apiKey } = await accountWithKey(suite.t.ctx, "pro");
    const live = await deploy(
      { "index.html": "<!doctype html><title>Live</title><p>live</p>" },
      {
        query: "?name=staged-check&render=1",
        key: apiKey,
      },
    );
    expect(renderOf(live).status).toBe("ok");
    const staged = await deploy(
      { "index.html": '<!doctype html><title>Staged</title><p>next</p><script>console.error("staged only")</script>' },
      { query: "?name=staged-check&promote=false&render=1", key: apiKey },
    );
    expect(staged.status).toBe(200);
    expect(staged.body.promoted).toBe(false);
    const r = renderOf(staged);
    expect(r.url).toBe(staged.body.version_url);
    expect(r.url).not.toBe(staged.body.url);
    expect(r.title).toBe("Staged");
    expect(r.console_errors.map((e) => e.text)).toEqual(["staged only"]);
  });

  it("a page that shows nothing is blank (and so problems)", async () => {
    const r = renderOf(
      await deploy({ "index.html": "<!doctype html><html><head><title>x</title></head><body> </body></html>" }),
    );
    expect(r.blank).toBe(true);
    expect(r.status).toBe("problems");
  });

  it("a main document answering 404 is failed with its status", async () => {
    const d = await deploy({ "about.html": "<p>no index</p>" });
    const r = renderOf(d);
    expect(r.status).toBe("failed");
    expect(r.http_status).toBe(404);
  });

  it("a page that never stops is cut at the hard stop, and the next check runs", async () => {
    const started = Date.now();
    const r = renderOf(await deploy({ "index.html": "<!doctype html><p>spinning</p><script>for(;;){}</script>" }));
    const took = Date.now() - started;
    expect(r.status).toBe("failed");
    expect(r.load_ms).toBeNull();
    expect(took).toBeGreaterThanOrEqual(10_000);
    expect(took).toBeLessThan(27_000);
    const next = renderOf(await deploy({ "index.html": "<p>after the spinner</p>" }));
    expect(next.status).toBe("ok");
  }, 60_000);
});

describe("containment", () => {
  let trap: Server;
  let trapPort: number;
  const hits: string[] = [];
  beforeAll(async () => {
    trapPort = await freePort();
    trap = createServer((req, res) => {
      hits.push(`${req.method} ${req.headers.host} ${req.url}`);
      res.end("reached");
    });
    trap.on("connection", () => hits.push("connection"));
    // Every address of this machine (loopback, the interface's) on IPv4 and IPv6.
    await new Promise<void>((r) => trap.listen(trapPort, "::", r));
  });
  afterAll(async () => {
    trap.closeAllConnections();
    await new Promise((r) => trap.close(r));
  });

  it("the page reaches no loopback, private or metadata address, by any kind of request", async () => {
    const p = trapPort;
    const targets = [
      `http://127.0.0.1:${p}`,
      `http://localhost:${p}`,
      `http://[::1]:${p}`,
      `http://192.0.2.2:${p}`, // this machine's interface (a reserved range)
      `http://10.0.0.1:${p}`,
      `http://169.254.169.254`,
      `http://2130706433:${p}`, // 127.0.0.1 spelt as a number
      `http://localhost:3000`, // the app host
    ];
    const js = `
      const targets = ${JSON.stringify(targets)};
      for (const t of targets) {
        fetch(t + "/fetch").catch(() => {});
        navigator.sendBeacon(t + "/beacon", "x");
        try { new WebSocket(t.replace("http", "ws") + "/ws"); } catch {}
        try { new EventSource(t + "/sse"); } catch {}
        const i = document.createElement("img"); i.src = t + "/img"; document.body.append(i);
        const f = document.createElement("iframe"); f.src = t + "/frame"; document.body.append(f);
        fetch(t.replace("http:", "https:") + "/tls").catch(() => {});
      }
      new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(targets[0] + "/worker") + ').catch(()=>{})'])));
      window.open(targets[0] + "/popup");
    `;
    const d = await deploy({
      "index.html": `<!doctype html><title>Probe</title><p>probe</p><script src="probe.js"></script>`,
      "probe.js": js,
      "go.html": "<p>redirecting</p>",
      _redirects: `/hop http://127.0.0.1:${p}/redirected 302\n`,
    });
    const r = renderOf(d);
    expect(r.status).not.toBe("failed");
    // A navigation redirected to loopback is refused too.
    const hop = await deploy({
      "page.html": "<p>x</p>",
      _redirects: `/ http://127.0.0.1:${p}/redirected 302\n`,
    });
    expect(renderOf(hop).status).toBe("failed");
    expect(hits).toEqual([]);
    const source = { kind: "local", path: CHROMIUM } as const;
    const { proxy } = await browserFor(suite.t.ctx.env, source);
    const refused = proxy!.refused.join(" ");
    for (const host of [
      `127.0.0.1:${p}`,
      `::1:${p}`,
      `192.0.2.2:${p}`,
      `10.0.0.1:${p}`,
      "169.254.169.254:80",
      "localhost:3000",
    ])
      expect(refused).toContain(host);
  }, 60_000);
});

describe("routes", () => {
  it("GET /drops/{slug}/render is 404 before a check, then the latest; POST checks now", async () => {
    const { apiKey } = await accountWithKey(suite.t.ctx, "free");
    const d = await deploy({ "index.html": "<p>owned</p>" }, { key: apiKey, query: "" });
    expect(d.body.render).toBeUndefined();
    const before = await renderRoute.GET(
      apiRequest(`/drops/${d.body.slug}/render`, { headers: bearer(apiKey) }),
      slugParams(d.body.slug),
    );
    expect(before.status).toBe(404);
    expect(((await before.json()) as { code: string }).code).toBe("not_found");
    const post = await renderRoute.POST(
      apiRequest(`/drops/${d.body.slug}/render`, { method: "POST", headers: bearer(apiKey) }),
      slugParams(d.body.slug),
    );
    expect(post.status).toBe(200);
    const checked = (await post.json()) as RenderResult;
    expect(checked.status).toBe("ok");
    const after = await renderRoute.GET(
      apiRequest(`/drops/${d.body.slug}/render`, { headers: bearer(apiKey) }),
      slugParams(d.body.slug),
    );
    expect(await after.json()).toEqual(checked);

    // A newer check replaces the screenshots; deleting the drop takes them away.
    const again = (await (
      await renderRoute.POST(
        apiRequest(`/drops/${d.body.slug}/render`, { method: "POST", headers: bearer(apiKey) }),
        slugParams(d.body.slug),
      )
    ).json()) as RenderResult;
    expect((await preview(checked.screenshots.desktop)).status).toBe(404);
    expect((await preview(again.screenshots.desktop)).status).toBe(200);
    const del = await dropRoute.DELETE(
      apiRequest(`/drops/${d.body.slug}`, { method: "DELETE", headers: bearer(apiKey) }),
      slugParams(d.body.slug),
    );
    expect(del.status).toBe(200);
    expect((await preview(again.screenshots.desktop)).status).toBe(404);
    expect((await preview(again.screenshots.phone)).status).toBe(404);
  }, 60_000);

  it("another account's drop is not found; an unknown screenshot id is 404", async () => {
    const owner = await accountWithKey(suite.t.ctx, "free");
    const other = await accountWithKey(suite.t.ctx, "free");
    const d = await deploy({ "index.html": "<p>mine</p>" }, { key: owner.apiKey, query: "" });
    const res = await renderRoute.POST(
      apiRequest(`/drops/${d.body.slug}/render`, { method: "POST", headers: bearer(other.apiKey) }),
      slugParams(d.body.slug),
    );
    expect(res.status).toBe(404);
    expect((await preview(`http://localhost:3000/previews/${"0".repeat(32)}.png`)).status).toBe(404);
  });

  it("render=<other> is 400 invalid_request and deploys nothing", async () => {
    const before = await suite.t.ctx.db.$count(drops);
    const d = await deploy({ "index.html": "<p>x</p>" }, { query: "?render=yes" });
    expect(d.status).toBe(400);
    expect(d.body.code).toBe("invalid_request");
    expect(await suite.t.ctx.db.$count(drops)).toBe(before);
  });

  it("GET /limits states render_checks_per_hour from the plan table", async () => {
    const res = await limitsRoute.GET(apiRequest("/limits"), noParams);
    const body = (await res.json()) as { limits: { render_checks_per_hour: number } };
    expect(body.limits.render_checks_per_hour).toBe(limits.anonymous.renderChecksPerHour);
    const { apiKey } = await accountWithKey(suite.t.ctx, "pro");
    const pro = (await (
      await limitsRoute.GET(apiRequest("/limits", { headers: bearer(apiKey) }), noParams)
    ).json()) as typeof body;
    expect(pro.limits.render_checks_per_hour).toBe(120);
  });
});

describe("the rate per caller", () => {
  it("an anonymous address gets 3 checks an hour; the 4th deploy still deploys, render says rate_limited", async () => {
    const ip = nextIp();
    for (let i = 0; i < limits.anonymous.renderChecksPerHour; i++) {
      const d = await deploy({ "index.html": `<p>${i}</p>` }, { ip });
      expect(renderOf(d).status).toBe("ok");
    }
    const over = await deploy({ "index.html": "<p>over</p>" }, { ip });
    expect(over.status).toBe(200);
    expect(over.body.slug).toBeTruthy();
    const render = over.body.render as { status: string; reason: string; retry_after: number; hint: string };
    expect(render.status).toBe("unavailable");
    expect(render.reason).toBe("rate_limited");
    expect(render.retry_after).toBeGreaterThan(0);
    expect(render.retry_after).toBeLessThanOrEqual(3600);
    // Another address has its own budget.
    expect(renderOf(await deploy({ "index.html": "<p>other</p>" })).status).toBe("ok");
    // An hour later the address may check again.
    suite.t.clock.advance(3601);
    expect(renderOf(await deploy({ "index.html": "<p>later</p>" }, { ip })).status).toBe("ok");
  }, 90_000);

  it("an account past its plan's rate gets 429 rate_limited from POST /drops/{slug}/render", async () => {
    const { apiKey } = await accountWithKey(suite.t.ctx, "free");
    const d = await deploy({ "index.html": "<p>rated</p>" }, { key: apiKey, query: "" });
    const post = () =>
      renderRoute.POST(
        apiRequest(`/drops/${d.body.slug}/render`, { method: "POST", headers: bearer(apiKey) }),
        slugParams(d.body.slug),
      );
    // The budget spent as 20 checks would: a quicker limit makes the test short.
    const saved = limits.free.renderChecksPerHour;
    limits.free.renderChecksPerHour = 2;
    try {
      expect((await post()).status).toBe(200);
      expect((await post()).status).toBe(200);
      const res = await post();
      expect(res.status).toBe(429);
      expect(((await res.json()) as { code: string }).code).toBe("rate_limited");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      limits.free.renderChecksPerHour = saved;
    }
  }, 60_000);
});

describe("without a browser", () => {
  it("a deploy says unavailable with a hint and succeeds; POST answers 503 upstream_unavailable", async () => {
    const saved = suite.t.ctx.env;
    suite.t.ctx.env = { ...saved, RENDER_BROWSER_PATH: undefined, RENDER_CDP_URL: undefined };
    try {
      const { apiKey } = await accountWithKey(suite.t.ctx, "free");
      const d = await deploy({ "index.html": "<p>no browser</p>" }, { key: apiKey });
      expect(d.status).toBe(200);
      expect(d.body.render).toMatchObject({ status: "unavailable", reason: "no_browser" });
      expect((d.body.render as { hint: string }).hint).toContain("RENDER_BROWSER_PATH");
      const res = await renderRoute.POST(
        apiRequest(`/drops/${d.body.slug}/render`, { method: "POST", headers: bearer(apiKey) }),
        slugParams(d.body.slug),
      );
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; hint: string };
      expect(body.code).toBe("upstream_unavailable");
      expect(body.hint).toContain("RENDER_CDP_URL");
    } finally {
      suite.t.ctx.env = saved;
    }
  });
});

describe("MCP render_check", () => {
  for (const flavour of CLIENT_FLAVOURS) {
    it(`${flavour}: deploy_html with render_check answers render and the desktop screenshot as an image block`, async () => {
      const agent = await connectAgent(flavour, { ip: nextIp() });
      try {
        const r = await agent.call("deploy_html", {
          html: "<!doctype html><title>Agent page</title><h1>Made by an agent</h1><script>console.error('agent oops')</script>",
          render_check: true,
        });
        expect(r.isError).toBeFalsy();
        const render = r.structuredContent?.render as RenderResult;
        expect(render.status).toBe("problems");
        expect(render.console_errors.map((e) => e.text)).toContain("agent oops");
        const text = r.content.find((c) => c.type === "text")?.text ?? "";
        expect(text).toContain("Render check: PROBLEMS");
        expect(text).toContain("Console error: agent oops");
        const image = r.content.find((c) => c.type === "image") as { data: string; mimeType: string } | undefined;
        expect(image?.mimeType).toBe("image/png");
        const png = Buffer.from(image!.data, "base64");
        expect(png.byteLength).toBeLessThanOrEqual(1024 * 1024);
        expect(pngSize(png)).toEqual({ width: 1280, height: 800 });
        // Without render_check nothing is checked and no image comes.
        const plain = await agent.call("deploy_html", { html: "<p>plain</p>" });
        expect(plain.structuredContent?.render).toBeUndefined();
        expect(plain.content.some((c) => c.type === "image")).toBe(false);
      } finally {
        await agent.close();
      }
    }, 60_000);
  }

  it("a screenshot over 1 MB comes scaled down to fit the image block; the stored one keeps its size", async () => {
    const agent = await connectAgent("client-2.x", { ip: nextIp() });
    try {
      // Random pixels do not compress: the desktop PNG is several MB.
      const noise =
        "<!doctype html><title>Noise</title><style>body{margin:0}</style><canvas id=c width=1280 height=800></canvas><script>" +
        "const c=document.getElementById('c').getContext('2d');const d=c.createImageData(1280,800);" +
        "for(let i=0;i<d.data.length;i++)d.data[i]=(Math.random()*256)|0;c.putImageData(d,0,0);</script>";
      const r = await agent.call("deploy_html", { html: noise, render_check: true });
      const render = r.structuredContent?.render as RenderResult;
      const stored = new Uint8Array(await (await preview(render.screenshots.desktop)).arrayBuffer());
      expect(stored.byteLength).toBeGreaterThan(1024 * 1024);
      expect(pngSize(stored)).toEqual({ width: 1280, height: 800 });
      const image = r.content.find((c) => c.type === "image") as { data: string } | undefined;
      const png = Buffer.from(image!.data, "base64");
      expect(png.byteLength).toBeLessThanOrEqual(1024 * 1024);
      expect(pngSize(png).width).toBeLessThan(1280);
      expect(pngSize(png).width / pngSize(png).height).toBeCloseTo(1280 / 800, 1);
    } finally {
      await agent.close();
    }
  }, 60_000);

  it("deploy_directory with render_check: the deploy made through its one-time URL answers its render check", async () => {
    const agent = await connectAgent("sdk-1.x", { ip: nextIp() });
    try {
      const sendTo = async (url: string) => {
        const token = url.slice(url.lastIndexOf("/") + 1);
        const res = await onceRoute.POST(
          apiRequest(`/deploy/once/${token}`, {
            method: "POST",
            headers: { "content-type": "text/html" },
            body: "<!doctype html><title>From a shell</title><h1>Shell</h1><script>console.error('shell oops')</script>",
            ip: nextIp(),
          }),
          { params: Promise.resolve({ token }) },
        );
        expect(res.status).toBe(200);
        return (await res.json()) as { slug: string; render?: RenderResult };
      };
      const checked = await agent.call("deploy_directory", { dir: "site", render_check: true });
      expect(checked.isError).toBeFalsy();
      const answer = await sendTo((checked.structuredContent as { url: string }).url);
      expect(answer.render?.status).toBe("problems");
      expect(answer.render?.console_errors.map((e) => e.text)).toContain("shell oops");
      // Without it, the one-time URL's deploy is not checked.
      const plain = await agent.call("deploy_directory", { dir: "site" });
      expect((await sendTo((plain.structuredContent as { url: string }).url)).render).toBeUndefined();
    } finally {
      await agent.close();
    }
  }, 60_000);

  it("every deploy tool takes render_check", async () => {
    const agent = await connectAgent("client-2.x", { ip: nextIp() });
    try {
      const tools = (await agent.listTools()) as {
        name: string;
        inputSchema?: { properties?: Record<string, unknown> };
      }[];
      for (const name of ["deploy_html", "deploy_files", "deploy_named", "append_files", "deploy_directory"])
        expect(Object.keys(tools.find((x) => x.name === name)?.inputSchema?.properties ?? {})).toContain(
          "render_check",
        );
    } finally {
      await agent.close();
    }
  });
});
