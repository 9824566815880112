import type { Manifest } from "./cache";
import type { PreviewSelector } from "./host";
import { reportLinkHtml } from "./disabled";
import { REVALIDATE } from "./headers";
import type { ServeResult } from "./types";

// The service's own small pages on drop hosts (400, 404, 410, 503): one template.

const PAGE_STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#222;background:#fafafa}main{max-width:32rem;padding:2rem;text-align:center}h1{font-size:1.4rem}a{color:#0b57d0}a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The service's own small pages on drop hosts (404, 410, 400): one template. */
export function page(status: number, title: string, text: string, extraHtml = ""): ServeResult {
  const body = new TextEncoder().encode(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${extraHtml}</main></body></html>`,
  );
  return {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Cache-Control": REVALIDATE,
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      // As every text answer of a drop host: what a compressing server in front (Next's own, on
      // `next start`) adds anyway, so both paths answer these pages alike.
      Vary: "Accept-Encoding",
    },
    body,
  };
}

/** 404; `reportUrl` (a path of an existing drop) prefills the report form its link opens. */
export const notFoundPage = (reportUrl?: string) =>
  page(404, "Not found", "There is nothing at this address.", reportLinkHtml(reportUrl));

/**
 * 404 of a preview host naming a version the drop no longer keeps (or never had) or an alias it
 * does not have: says which, carries nothing of the drop.
 */
export function noPreviewPage(selector: PreviewSelector): ServeResult {
  return "version" in selector
    ? page(404, "Version not kept", `Version ${selector.version} of this drop is no longer kept.`)
    : page(404, "No such preview", `No preview named ${selector.alias}.`);
}

export const badRequestPage = () => page(400, "Bad request", "This address is not a valid path.");

export function gonePage(m: Manifest, now: number): ServeResult {
  const { drop } = m;
  if (drop.ownerId === null && drop.claimable && drop.purgeAt && drop.purgeAt.getTime() > now) {
    const until = drop.purgeAt.toISOString().slice(0, 16).replace("T", " ");
    return page(
      410,
      "This drop has expired",
      `It is offline. Its owner can still claim it with the claim token until ${until} UTC; then it is deleted.`,
    );
  }
  return page(410, "This drop has expired", "The content that was published here is no longer online.");
}

export function unavailablePage(): ServeResult {
  const r = page(503, "Temporarily unavailable", "This drop cannot be served right now. Try again in a minute.");
  r.headers["Retry-After"] = "30";
  return r;
}
