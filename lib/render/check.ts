import type { Browser, Page } from "playwright-core";
import type { RenderFindings } from "../schemas";
import { RENDER_HARD_STOP_MS, RENDER_VIEWPORT_WAIT_MS } from "../plans";
import type { ReachRule } from "./proxy";
import { reachable } from "./proxy";

type ConsoleError = RenderFindings["console_errors"][number];
type FailedRequest = RenderFindings["failed_requests"][number];

// One render check: a fresh browser context, the page opened at a desktop and a phone size, what
// went wrong collected, a viewport screenshot of each. The context is closed at the end whatever
// the page does: a hard stop bounds the whole check.

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

export interface RenderRun {
  findings: RenderFindings;
  screenshots: Partial<Record<ViewportName, Buffer>>;
}

export interface CheckOptions {
  /** The wait for load and network idle per viewport. */
  viewportWaitMs?: number;
  /** The whole check's limit; the context is closed then. */
  hardStopMs?: number;
  /** With a remote browser (no proxy of ours in front of it): requests are checked by routing. */
  routeRule?: ReachRule;
}

/** Entries kept per list and characters per text: a page cannot grow the stored result without bound. */
const LIST_MAX = 50;
const TEXT_MAX = 500;
const clip = (s: string) => (s.length > TEXT_MAX ? `${s.slice(0, TEXT_MAX - 1)}…` : s);

class Collector {
  console_errors: ConsoleError[] = [];
  page_errors: string[] = [];
  failed_requests: FailedRequest[] = [];
  private seen = new Set<string>();
  /** Set once the check is over: events of pages being torn down are not findings. */
  closed = false;

  private add<T>(list: T[], item: T): void {
    if (this.closed || list.length >= LIST_MAX) return;
    const key = JSON.stringify(item);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    list.push(item);
  }

  watch(page: Page): void {
    page.on("console", (m) => {
      if (m.type() !== "error") return;
      const l = m.location();
      // The browser asks for /favicon.ico by itself; a visitor never sees that it is missing.
      if (/^https?:\/\/[^/]+\/favicon\.ico$/.test(l.url) && m.text().startsWith("Failed to load resource")) return;
      this.add(this.console_errors, {
        text: clip(m.text()),
        location: l.url ? clip(`${l.url}:${l.lineNumber + 1}:${l.columnNumber + 1}`) : "",
      });
    });
    page.on("pageerror", (err) => this.add(this.page_errors, clip(err.message)));
    page.on("requestfailed", (r) => {
      const error = r.failure()?.errorText ?? "failed";
      // Requests cut off by the check closing its page are not the page's failures.
      if (!/^https?:/.test(r.url()) || error === "net::ERR_ABORTED") return;
      this.add(this.failed_requests, { url: clip(r.url()), error });
    });
    page.on("response", (r) => {
      if (r.status() >= 400) this.add(this.failed_requests, { url: clip(r.url()), status: r.status() });
    });
    // Alerts would hold the page; nothing may be granted or downloaded.
    page.on("dialog", (d) => void d.dismiss().catch(() => undefined));
    page.on("download", (d) => void d.cancel().catch(() => undefined));
  }
}

interface ViewportOutcome {
  loaded: boolean;
  httpStatus: number | null;
  loadMs: number | null;
  title: string;
  blank: boolean;
  error?: string;
}

/** Whether the page shows nothing: no visible text, media, form control or background image. */
function isBlank(page: Page, timeout: number): Promise<boolean> {
  return Promise.race([
    page.evaluate(() => {
      const body = document.body;
      if (!body) return true;
      if ((body.innerText || "").trim().length > 0) return false;
      const shown = (el: Element) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      };
      const media = document.querySelectorAll(
        "img, svg, canvas, video, iframe, object, embed, input, button, textarea, select",
      );
      if ([...media].some(shown)) return false;
      return ![body, ...body.querySelectorAll("*")].some(
        (el) => getComputedStyle(el).backgroundImage !== "none" && shown(el),
      );
    }),
    new Promise<boolean>((_, reject) => setTimeout(() => reject(new Error("timeout")), timeout)),
  ]);
}

async function openAt(
  newPage: () => Promise<Page>,
  collector: Collector,
  url: string,
  name: ViewportName,
  waitMs: number,
  shots: RenderRun["screenshots"],
): Promise<ViewportOutcome> {
  const page = await newPage();
  try {
    return await visit(page, collector, url, name, waitMs, shots);
  } finally {
    await page.close().catch(() => undefined);
  }
}

async function visit(
  page: Page,
  collector: Collector,
  url: string,
  name: ViewportName,
  waitMs: number,
  shots: RenderRun["screenshots"],
): Promise<ViewportOutcome> {
  collector.watch(page);
  await page.setViewportSize(VIEWPORTS[name]);
  const started = Date.now();
  const left = () => Math.max(1, waitMs - (Date.now() - started));
  let response;
  try {
    response = await page.goto(url, { waitUntil: "load", timeout: waitMs });
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    // Whatever was painted before the limit is still worth a look.
    shots[name] = await page.screenshot({ type: "png", timeout: 2_000 }).catch(() => undefined);
    return { loaded: false, httpStatus: null, loadMs: null, title: "", blank: false, error: message };
  }
  const loadMs = Date.now() - started;
  await page.waitForLoadState("networkidle", { timeout: left() }).catch(() => undefined);
  const httpStatus = response?.status() ?? null;
  const title = await page.title().catch(() => "");
  const blank = await isBlank(page, 2_000).catch(() => false);
  shots[name] = await page.screenshot({ type: "png", timeout: 5_000 });
  return { loaded: httpStatus === null || httpStatus < 400, httpStatus, loadMs, title, blank };
}

/** Opens url in a fresh context of browser at both sizes; never throws for what the page does. */
export async function runCheck(browser: Browser, url: string, opts: CheckOptions = {}): Promise<RenderRun> {
  const waitMs = opts.viewportWaitMs ?? RENDER_VIEWPORT_WAIT_MS;
  const hardStopMs = opts.hardStopMs ?? RENDER_HARD_STOP_MS;
  const context = await browser.newContext({
    viewport: VIEWPORTS.desktop,
    deviceScaleFactor: 1,
    acceptDownloads: false,
    serviceWorkers: "block",
    permissions: [],
    javaScriptEnabled: true,
  });
  const collector = new Collector();
  const shots: RenderRun["screenshots"] = {};
  const outcomes: Partial<Record<ViewportName, ViewportOutcome>> = {};
  const rule = opts.routeRule;
  if (rule) {
    await context.route("**/*", async (route) => {
      const u = new URL(route.request().url());
      if (u.protocol !== "http:" && u.protocol !== "https:") return route.continue();
      const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
      const ok = await reachable(rule, u.hostname, port).then(
        () => true,
        () => false,
      );
      return ok ? route.continue() : route.abort("blockedbyclient");
    });
  }
  // Popups (window.open, target=_blank) are closed as they open: the check opens one page at a
  // time (the previous one closed first), and any page it did not ask for is a popup.
  let expecting = 0;
  context.on("page", (p) => {
    if (expecting > 0) expecting--;
    else void p.close().catch(() => undefined);
  });
  const newPage = () => {
    expecting++;
    return context.newPage();
  };

  let timer: NodeJS.Timeout | undefined;
  const stop = new Promise<"stopped">((resolve) => {
    timer = setTimeout(() => resolve("stopped"), hardStopMs);
  });
  const work = (async () => {
    for (const name of ["desktop", "phone"] as const) {
      outcomes[name] = await openAt(newPage, collector, url, name, waitMs, shots);
    }
    return "done" as const;
  })();
  const ended = await Promise.race([work, stop]).catch((err: unknown) => {
    outcomes.desktop ??= {
      loaded: false,
      httpStatus: null,
      loadMs: null,
      title: "",
      blank: false,
      error: err instanceof Error ? err.message : String(err),
    };
    return "done" as const;
  });
  clearTimeout(timer);
  collector.closed = true;
  work.catch(() => undefined);
  await context.close().catch(() => undefined);

  const desktop = outcomes.desktop;
  const loaded = ended === "done" && desktop?.loaded === true && outcomes.phone?.loaded !== false;
  const blank = desktop?.blank === true;
  const findings: RenderFindings = {
    status: "ok",
    url,
    http_status: desktop?.httpStatus ?? null,
    title: clip(desktop?.title ?? ""),
    load_ms: desktop?.loadMs ?? null,
    console_errors: collector.console_errors,
    page_errors: collector.page_errors,
    failed_requests: collector.failed_requests,
    blank,
  };
  if (!loaded) findings.status = "failed";
  else if (
    blank ||
    findings.console_errors.length > 0 ||
    findings.page_errors.length > 0 ||
    findings.failed_requests.length > 0
  )
    findings.status = "problems";
  return { findings, screenshots: shots };
}

/**
 * A PNG of at most maxBytes: the same picture halved in size until it fits (drawn on a canvas in
 * an offline context of the browser, so no image library is needed). Undefined when it cannot be.
 */
export async function shrinkPng(browser: Browser, png: Buffer, maxBytes: number): Promise<Buffer | undefined> {
  if (png.byteLength <= maxBytes) return png;
  const context = await browser.newContext({ offline: true, javaScriptEnabled: true });
  try {
    const page = await context.newPage();
    let current = png;
    for (let i = 0; i < 4 && current.byteLength > maxBytes; i++) {
      const b64 = await page.evaluate(async (source: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${source}`;
        await img.decode();
        const canvas = document.createElement("canvas");
        canvas.width = Math.max(1, Math.round(img.naturalWidth / 2));
        canvas.height = Math.max(1, Math.round(img.naturalHeight / 2));
        canvas.getContext("2d")!.drawImage(img, 0, 0, canvas.width, canvas.height);
        return canvas.toDataURL("image/png").slice("data:image/png;base64,".length);
      }, current.toString("base64"));
      current = Buffer.from(b64, "base64");
    }
    return current.byteLength <= maxBytes ? current : undefined;
  } finally {
    await context.close().catch(() => undefined);
  }
}
