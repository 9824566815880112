import { readFile } from "node:fs/promises";
import path from "node:path";
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { McpUiResourceMeta, McpUiToolMeta } from "@modelcontextprotocol/ext-apps";
import QRCode from "qrcode";
import { publicScheme, type Env } from "../env";

// The MCP Apps preview (extension io.modelcontextprotocol/ui, the official
// @modelcontextprotocol/ext-apps): one ui:// resource, an HTML view a host renders in a sandboxed
// frame beside a deploy tool's result. The deploy tools name it in their definitions
// (_meta.ui.resourceUri, and the older "ui/resourceUri" key the SDK's registerAppTool also
// writes). The resource is the same for everyone and holds no data: the host hands the view the
// tool's result (URL, expiry, version, claim token; the QR code's modules in the result's
// _meta), and the view shows it with a sandboxed frame of the drop. Clients without the
// extension ignore all of this and read the same text results as before.

export const PREVIEW_URI = "ui://dropsite/deploy-preview.html";
export { RESOURCE_MIME_TYPE };

/** Where a deploy result carries its URL's QR code for the view (rows of 0/1 modules). */
export const QR_META_KEY = "dev.dropsite/qr";

/**
 * The official App class, from the package's single-file browser build: inlined into the view
 * (a host gives a view no network by default). Traced for Vercel in next.config.ts.
 */
export const APP_BUNDLE = "node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js";

/** What a deploy tool's definition carries in tools/list (as registerAppTool normalises it). */
export function previewToolMeta(): Record<string, unknown> {
  const ui: McpUiToolMeta = { resourceUri: PREVIEW_URI };
  return { ui, [RESOURCE_URI_META_KEY]: PREVIEW_URI };
}

/** The origins the view may frame: every drop host under the serve domain. */
function frameOrigins(e: Env): string[] {
  return [`${publicScheme(e)}://*.${e.SERVE_DOMAIN}`];
}

export function previewUiMeta(e: Env): McpUiResourceMeta {
  return { csp: { frameDomains: frameOrigins(e), connectDomains: [], resourceDomains: [] }, prefersBorder: true };
}

/** The resource as resources/list names it. */
export function previewResource(e: Env) {
  return {
    uri: PREVIEW_URI,
    name: "deploy-preview",
    title: "Deploy preview",
    description:
      "Shows a deploy's URL, QR code, expiry, claim token and a sandboxed preview of the drop, from the deploy tool's result.",
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: previewUiMeta(e) },
  };
}

/** A drop URL's QR code as rows of "0"/"1" modules (the view draws them; no quiet zone). */
export function qrModules(url: string): { size: number; rows: string[] } {
  const { modules } = QRCode.create(url, { errorCorrectionLevel: "M" });
  const rows: string[] = [];
  for (let r = 0; r < modules.size; r++)
    rows.push(
      Array.from(modules.data.subarray(r * modules.size, (r + 1) * modules.size), (b) => (b ? "1" : "0")).join(""),
    );
  return { size: modules.size, rows };
}

let bundle: Promise<string> | undefined;

/**
 * The App bundle as a classic block of a module script: its closing `export{a as B,…}` becomes
 * `const ExtApps={B:a,…}`, so the view's own code can follow it in the same inline script.
 */
function appBundle(): Promise<string> {
  bundle ??= readFile(path.join(process.cwd(), APP_BUNDLE), "utf8").then(
    (js) => {
      const m = /export\{([^}]*)\};?\s*$/.exec(js);
      if (!m) throw new Error(`${APP_BUNDLE}: no trailing export list`);
      const pairs = m[1]!.split(",").map((p) => {
        const [local, , exported] = p.trim().split(/\s+/);
        return `${exported ?? local}:${local}`;
      });
      // Nothing in the bundle may end the inline script early.
      return `${js.slice(0, m.index)}const ExtApps={${pairs.join(",")}};`.replaceAll("</script", "<\\/script");
    },
    (err: unknown) => {
      bundle = undefined;
      throw err;
    },
  );
  return bundle;
}

/** The view's own code: waits for the tool result and renders it. No template syntax inside. */
const VIEW_SCRIPT = String.raw`
const $ = (id) => document.getElementById(id);
const status = (text) => { $("status").textContent = text; };
const app = new ExtApps.App({ name: "Dropsite deploy preview", version: "1.0.0" }, {}, { autoResize: true });

function theme(ctx) {
  if (ctx && (ctx.theme === "light" || ctx.theme === "dark")) document.documentElement.style.colorScheme = ctx.theme;
}

function drawQr(qr, url) {
  const svg = $("qr");
  while (svg.lastChild && svg.lastChild.nodeName !== "title") svg.removeChild(svg.lastChild);
  const NS = "http://www.w3.org/2000/svg";
  const quiet = 4, size = qr.size + quiet * 2;
  svg.setAttribute("viewBox", "0 0 " + size + " " + size);
  const bg = document.createElementNS(NS, "rect");
  bg.setAttribute("width", String(size)); bg.setAttribute("height", String(size)); bg.setAttribute("fill", "#fff");
  svg.appendChild(bg);
  let d = "";
  qr.rows.forEach((row, y) => { for (let x = 0; x < row.length; x++) if (row[x] === "1") d += "M" + (x + quiet) + " " + (y + quiet) + "h1v1h-1z"; });
  const p = document.createElementNS(NS, "path");
  p.setAttribute("d", d); p.setAttribute("fill", "#000");
  svg.appendChild(p);
  $("qr-title").textContent = "QR code for " + url;
  $("qr-caption").textContent = "Scan to open " + url;
  $("qr-figure").hidden = false;
}

// render_check: the verdict and the desktop screenshot (the result's image block).
function showCheck(result, d) {
  const r = d.render;
  if (!r || typeof r.status !== "string") { $("check").hidden = true; return; }
  const n = (a) => (Array.isArray(a) ? a.length : 0);
  $("check-status").textContent =
    r.status === "unavailable" ? "Not checked: " + r.hint
    : r.status === "ok" ? "OK: no errors, failed requests or blank page."
    : r.status === "failed" ? "The page did not load" + (r.http_status ? " (HTTP " + r.http_status + ")" : "") + "."
    : "Problems: " + n(r.console_errors) + " console errors, " + n(r.page_errors) + " exceptions, " + n(r.failed_requests) + " failed requests" + (r.blank ? ", blank page" : "") + ".";
  const img = (result.content || []).find((c) => c.type === "image" && c.mimeType === "image/png");
  const shot = $("shot");
  if (img) { shot.src = "data:image/png;base64," + img.data; shot.alt = "Screenshot of " + d.url + " in a desktop browser"; shot.hidden = false; }
  else { shot.removeAttribute("src"); shot.hidden = true; }
  $("check").hidden = false;
}

function render(result) {
  const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  const d = result.structuredContent;
  if (result.isError || !d || typeof d.url !== "string") {
    $("result").hidden = true;
    $("title").textContent = "Deploy failed";
    status(text || "The deploy did not succeed.");
    return;
  }
  $("title").textContent = d.unchanged ? "Unchanged: the live version is the same" : "Your site is live";
  status("Deployed" + (d.name ? " the named drop " + d.name : "") + (typeof d.version === "number" ? ", version " + d.version : "") + ".");
  const a = $("url");
  a.href = d.url; a.textContent = d.url;
  $("version").textContent = typeof d.version === "number" ? String(d.version) : "–";
  const exp = $("expires");
  if (d.expires_at) { exp.dateTime = d.expires_at; exp.textContent = new Date(d.expires_at).toLocaleString(); } else { exp.removeAttribute("datetime"); exp.textContent = "Never"; }
  $("claim").hidden = !d.claim_token;
  $("token").textContent = d.claim_token || "";
  const qr = result._meta && result._meta["${QR_META_KEY}"];
  if (qr && Array.isArray(qr.rows)) drawQr(qr, d.url); else $("qr-figure").hidden = true;
  showCheck(result, d);
  const frame = $("frame");
  frame.title = "Preview of " + d.url;
  frame.src = d.url;
  $("result").hidden = false;
}

$("url").addEventListener("click", (ev) => {
  const url = ev.currentTarget.href;
  ev.preventDefault();
  app.openLink({ url }).catch(() => window.open(url, "_blank", "noopener"));
});
app.ontoolinput = () => status("Deploying…");
app.ontoolresult = render;
app.ontoolcancelled = () => status("The deploy was cancelled.");
app.onhostcontextchanged = theme;
app.connect().then(() => theme(app.getHostContext()), (err) => status("Could not reach the host: " + (err && err.message ? err.message : String(err))));
`;

const STYLE = `
:root { color-scheme: light dark; font: 15px/1.5 system-ui, sans-serif; }
body { margin: 0; padding: 16px; background: Canvas; color: CanvasText; }
h1 { font-size: 1.25rem; margin: 0 0 4px; }
h2 { font-size: 1rem; margin: 16px 0 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 12px 0; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
a { color: LinkText; }
a:focus-visible, iframe:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
code { font: 0.95rem ui-monospace, monospace; overflow-wrap: anywhere; user-select: all; }
.layout { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.layout > div { flex: 1 1 260px; min-width: 0; }
figure { margin: 0; flex: 0 0 auto; }
svg { width: 148px; height: 148px; display: block; }
figcaption { font-size: 0.85rem; max-width: 148px; overflow-wrap: anywhere; }
#shot { display: block; max-width: 100%; height: auto; border: 1px solid GrayText; border-radius: 6px; }
iframe { width: 100%; height: 320px; border: 1px solid GrayText; border-radius: 6px; background: #fff; }
[hidden] { display: none !important; }
`;

/** The CSP the view sets for itself: inline code only, frames of drop hosts only, no network. */
function viewCsp(e: Env): string {
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    "img-src data:",
    `frame-src ${frameOrigins(e).join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The view's HTML: static, the same for everyone, without any data or secret. */
export async function previewHtml(e: Env): Promise<string> {
  const app = await appBundle();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${viewCsp(e)}">
<title>Dropsite deploy preview</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 id="title">Deploy preview</h1>
<p id="status" role="status">Waiting for the deploy result…</p>
<div id="result" hidden>
<div class="layout">
<div>
<dl>
<dt>URL</dt><dd><a id="url" href="about:blank" target="_blank" rel="noopener noreferrer"></a></dd>
<dt>Version</dt><dd id="version"></dd>
<dt>Expires</dt><dd><time id="expires"></time></dd>
</dl>
<section id="claim" aria-labelledby="claim-heading" hidden>
<h2 id="claim-heading">Claim token</h2>
<p>This drop is anonymous. Keep this token private: whoever has it can claim the drop into their account.</p>
<p><code id="token"></code></p>
</section>
</div>
<figure id="qr-figure" hidden>
<svg id="qr" role="img" aria-labelledby="qr-title" xmlns="http://www.w3.org/2000/svg"><title id="qr-title">QR code</title></svg>
<figcaption id="qr-caption"></figcaption>
</figure>
</div>
<section id="check" aria-labelledby="check-heading" hidden>
<h2 id="check-heading">In a real browser</h2>
<p id="check-status"></p>
<img id="shot" alt="" width="1280" height="800" hidden>
</section>
<h2 id="preview-heading">Preview</h2>
<iframe id="frame" title="Preview of the drop" sandbox="allow-scripts allow-forms" referrerpolicy="no-referrer" loading="lazy"></iframe>
</div>
</main>
<script type="module">${app}
${VIEW_SCRIPT}</script>
</body>
</html>
`;
}

/** resources/read of the preview. */
export async function readPreview(e: Env) {
  return {
    contents: [
      { uri: PREVIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: await previewHtml(e), _meta: { ui: previewUiMeta(e) } },
    ],
  };
}
