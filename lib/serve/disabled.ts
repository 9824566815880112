import { env } from "../env";
import type { Manifest } from "./cache";
import type { ServeRequest, ServeResult } from "./types";

// A disabled drop (or a suspended owner's): 451 on every host and path, before the access gate
// and before any file is looked up, so no byte of the drop is read. The state comes with the
// cached manifest (lib/db/serving.ts), so this costs no lookup.

/** What the public page says for each reason category an operator picks. */
const REASON_TEXT: Record<string, string> = {
  phishing: "phishing (a page that imitates another site to take credentials)",
  malware: "malware (harmful or unwanted software)",
  spam: "spam",
  illegal: "illegal content",
  copyright: "a copyright complaint",
  other: "a breach of the terms of service",
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The app's report form, prefilled with a URL when one is given (and with a reason). */
export function reportHref(url?: string, reason?: string): string {
  const q = new URLSearchParams();
  if (url) q.set("url", url);
  if (reason) q.set("reason", reason);
  const s = q.toString();
  return `${env().BASE_URL}/report${s ? `?${s}` : ""}`;
}

/** The address a visitor asked for on a drop host (its host and path, no query), to prefill the report form with. */
export function visitedUrl(req: ServeRequest): string | undefined {
  const host = req.headers.get("host");
  return host ? `${env().BASE_URL.startsWith("https:") ? "https" : "http"}://${host}${req.pathname}` : undefined;
}

/** The link to the report form that the service's own pages on drop hosts carry, prefilled with the drop's address when known. */
export function reportLinkHtml(url?: string): string {
  return `<p><a href="${escapeHtml(reportHref(url))}">Report abuse</a></p>`;
}

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#1f2328;background:#f6f8fa}main{max-width:34rem;padding:2rem}h1{font-size:1.4rem}a{color:#0b57d0}a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}";

/** The 451 answer of a disabled drop, or undefined when the drop serves. */
export function disabledResult(m: Manifest, req: ServeRequest): ServeResult | undefined {
  const state = m.drop.disabled;
  if (!state) return undefined;
  const here = visitedUrl(req);
  const why = REASON_TEXT[state.reason] ?? REASON_TEXT.other!;
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>Unavailable for legal reasons</title><style>${STYLE}</style></head><body><main>` +
    `<h1>This site has been disabled</h1><p>The operator of this hosting service disabled it for ${escapeHtml(why)}.</p>` +
    `<p>If you own it, you can still delete it, or <a href="${escapeHtml(reportHref(here, "appeal"))}">appeal</a>. ` +
    `To tell us about another site, use the <a href="${escapeHtml(reportHref())}">report form</a>.</p></main></body></html>`;
  const body = new TextEncoder().encode(html);
  return {
    status: 451,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    },
    body: req.method === "HEAD" ? null : body,
  };
}
