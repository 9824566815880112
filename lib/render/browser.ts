import type { Browser } from "playwright-core";
import type { Env } from "../env";
import { startContainmentProxy, type ContainmentProxy, type ReachRule } from "./proxy";

// The render check's browser: one per process, started on first use and again after it goes
// away. A local Chromium (RENDER_BROWSER_PATH) runs behind the containment proxy (./proxy.ts);
// a remote one (RENDER_CDP_URL) is connected over CDP and its requests are checked by routing in
// the context (./check.ts), as a remote browser's own network is out of our reach.

/** Where the check's browser comes from, or why there is none. */
export type BrowserSource =
  { kind: "local"; path: string } | { kind: "cdp"; url: string } | { kind: "none"; hint: string };

export const NO_BROWSER_HINT =
  "No browser is set up for render checks on this server: set RENDER_BROWSER_PATH to a Chromium executable (e.g. /usr/bin/chromium) or RENDER_CDP_URL to a remote Chromium's DevTools endpoint (see the README).";

export function browserSource(e: Pick<Env, "RENDER_BROWSER_PATH" | "RENDER_CDP_URL">): BrowserSource {
  if (e.RENDER_CDP_URL) return { kind: "cdp", url: e.RENDER_CDP_URL };
  if (e.RENDER_BROWSER_PATH) return { kind: "local", path: e.RENDER_BROWSER_PATH };
  return { kind: "none", hint: NO_BROWSER_HINT };
}

/** What may be reached from a check, from the configuration. */
export function reachRule(e: Pick<Env, "BASE_URL" | "SERVE_DOMAIN">): ReachRule {
  const app = new URL(e.BASE_URL);
  const [serveHost = "", servePort] = e.SERVE_DOMAIN.split(":");
  return {
    appHost: {
      hostname: app.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: Number(app.port || (app.protocol === "https:" ? 443 : 80)),
    },
    serveHost,
    servePort: servePort === undefined ? null : Number(servePort),
  };
}

const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
  // WebRTC's UDP does not go through a proxy: none at all.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
];

interface Running {
  browser: Browser;
  proxy: ContainmentProxy | null;
  source: string;
}

/** The process's browser and proxy, and its queue of checks. */
interface State {
  running?: Promise<Running>;
  active: number;
  queue: (() => void)[];
}

// On globalThis, as the context is (lib/context.ts): Next's bundles and the data plane's each
// hold a copy of this module in one process, and they share one browser and one queue.
const KEY = Symbol.for("dropsite.render");
const slot = globalThis as unknown as Record<symbol, State | undefined>;
function state(): State {
  return (slot[KEY] ??= { active: 0, queue: [] });
}

/** The browser to check with, started or connected on first use. */
export function browserFor(e: Env, source: Exclude<BrowserSource, { kind: "none" }>): Promise<Running> {
  const s = state();
  const id = source.kind === "local" ? `local:${source.path}` : `cdp:${source.url}`;
  const current = s.running;
  if (current) {
    return current.then((r) => {
      if (r.source === id && r.browser.isConnected()) return r;
      if (s.running === current) s.running = undefined;
      void r.browser.close().catch(() => undefined);
      void r.proxy?.close();
      return browserFor(e, source);
    });
  }
  const started = start(e, source, id);
  s.running = started;
  started.then(
    (r) =>
      r.browser.on("disconnected", () => {
        if (s.running === started) s.running = undefined;
        void r.proxy?.close();
      }),
    () => {
      if (s.running === started) s.running = undefined;
    },
  );
  return started;
}

async function start(e: Env, source: Exclude<BrowserSource, { kind: "none" }>, id: string): Promise<Running> {
  // Loaded with the first check: playwright-core is 20 MB of heap that a server without render
  // checks, or one that has not run one yet, should not carry (docs/benchmarks.md).
  const { chromium } = await import("playwright-core");
  if (source.kind === "cdp") return { browser: await chromium.connectOverCDP(source.url), proxy: null, source: id };
  const proxy = await startContainmentProxy(() => reachRule(e));
  try {
    const browser = await chromium.launch({
      executablePath: source.path,
      headless: true,
      args: [...LAUNCH_ARGS, `--proxy-server=http://127.0.0.1:${proxy.port}`, "--proxy-bypass-list=<-loopback>"],
    });
    return { browser, proxy, source: id };
  } catch (err) {
    await proxy.close();
    throw err;
  }
}

/** Runs task with at most `max` checks at once in this process (the rest wait in order). */
export async function inQueue<T>(max: number, task: () => Promise<T>): Promise<T> {
  const s = state();
  if (s.active >= max) await new Promise<void>((resolve) => s.queue.push(resolve));
  s.active++;
  try {
    return await task();
  } finally {
    s.active--;
    s.queue.shift()?.();
  }
}

/** Closes the process's browser and proxy (tests, shutdown). */
export async function closeBrowser(): Promise<void> {
  const s = state();
  const r = await s.running?.catch(() => undefined);
  s.running = undefined;
  await r?.browser.close().catch(() => undefined);
  await r?.proxy?.close();
}
