import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ApiReference } from "@scalar/nextjs-api-reference";
import { FRAME_POLICY } from "../csp";

// GET /docs/api: Scalar's interactive reference, rendered in the browser from /openapi.json.
// Scalar's browser bundle is served by the app itself (GET /docs/api/scalar.js, from the
// installed @scalar/api-reference), so the page needs no network beyond the app: it works from
// a clone offline and on an intranet, and its CSP allows nothing else.

/** The single-file (UMD) build, which loads no further chunks. Traced for Vercel in next.config.ts. */
export const SCALAR_BUNDLE = "node_modules/@scalar/api-reference/dist/browser/standalone.js";

let bundle: Promise<{ body: Buffer; etag: string }> | undefined;

/** The bundle's bytes and a hash of them, read once per process. */
function scalarBundle(): Promise<{ body: Buffer; etag: string }> {
  bundle ??= readFile(path.join(process.cwd(), SCALAR_BUNDLE)).then(
    (body) => ({ body, etag: createHash("sha256").update(body).digest("hex").slice(0, 16) }),
    (err: unknown) => {
      bundle = undefined;
      throw err;
    },
  );
  return bundle;
}

/** GET /docs/api/scalar.js: the bundle, cacheable for good (the page links it by its hash). */
export async function scalarBundleResponse(): Promise<Response> {
  const { body, etag } = await scalarBundle();
  return new Response(new Uint8Array(body), {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=31536000, immutable",
      ETag: `"${etag}"`,
    },
  });
}

/**
 * The page's policy (the proxy leaves it alone: lib/csp.ts): scripts only from the app and the page's own inline start-up script (by
 * nonce); Scalar injects its styles at run time, so inline styles are allowed; requests (the
 * document, "Test request") only to the app itself.
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    FRAME_POLICY,
  ].join("; ");
}

/** Colours of Scalar's Next.js theme that read below 4.5:1 replaced (light and dark), 24 px targets, the site's focus ring. */
const ACCESSIBLE_CSS = `
.light-mode { --scalar-color-2: #5b6270; --scalar-color-3: #5b6270; --scalar-color-orange: #a34a00; --scalar-color-yellow: #7a5c00; }
.dark-mode { --scalar-color-2: rgba(255, 255, 255, 0.75); --scalar-color-3: rgba(255, 255, 255, 0.7); }
li[data-sidebar-id] button[aria-expanded] { min-width: 24px; min-height: 24px; }
:focus-visible { outline: 3px solid #364fc7 !important; outline-offset: 2px !important; }
.dark-mode :focus-visible { outline-color: #91a7ff !important; }
`;

/**
 * Run in the page as Scalar renders: its icon-only copy buttons get the name "Copy" (WCAG 4.1.2),
 * and its endpoint lists, which scroll sideways on a phone, take focus so the keyboard can
 * scroll them (2.1.1). Checked by tests/e2e/accessibility.test.ts with the other pages.
 */
const ACCESSIBLE_SCRIPT = `(() => {
  let queued = false;
  const mend = () => {
    queued = false;
    for (const b of document.querySelectorAll("button:not([aria-label])")) {
      // Its text is in elements hidden until the code block is hovered or focused.
      if (String(b.className).includes("copy-button")) b.setAttribute("aria-label", "Copy");
    }
    for (const list of document.querySelectorAll("ul.endpoints:not([tabindex])")) list.tabIndex = 0;
  };
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(mend); } }).observe(document.documentElement, { subtree: true, childList: true });
  mend();
})();`;

/** GET /docs/api: the reference page. */
export async function referencePage(): Promise<Response> {
  const { etag } = await scalarBundle();
  const nonce = randomBytes(16).toString("base64");
  const render = ApiReference({
    url: "/openapi.json",
    pageTitle: "dropsite API reference",
    cdn: `/docs/api/scalar.js?v=${etag}`,
    nonce,
    // Nothing from elsewhere: no web fonts, no telemetry, none of Scalar's hosted features (the
    // AI agent, MCP, sharing and deploying the document from the toolbar).
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    // Some twenty operations: all of them listed in the sidebar at once.
    defaultOpenAllTags: true,
    // WCAG 2.2 AA (docs/web.md): text colours of the theme darkened to 4.5:1, targets of 24 px.
    customCss: ACCESSIBLE_CSS,
  });
  // The page's language, for screen readers (Scalar's page has none), and the names and focus
  // Scalar's rendered page lacks (ACCESSIBLE_SCRIPT).
  const page = (await render().text())
    .replace(/<html>/i, '<html lang="en">')
    .replace(/<\/body>/i, `<script nonce="${nonce}">${ACCESSIBLE_SCRIPT}</script></body>`);
  return new Response(page, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": contentSecurityPolicy(nonce),
    },
  });
}
