// URLs as the scan reads them: resolved the way a browser on the drop's host would, and
// judged against the drop's own hosts and the table of known collection endpoints.

/** Stands for the drop's own origin while resolving relative URLs. */
export const OWN_ORIGIN = "https://drop.invalid/";
const OWN_HOST = "drop.invalid";

/**
 * Services phishing kits post stolen credentials to: a form action, a fetch/XHR/beacon URL, a
 * script source or a string in a script naming one is `exfiltration-endpoint`. Host (exact,
 * lower case) and the paths on it that receive messages.
 */
export const EXFILTRATION_ENDPOINTS: readonly { host: string; path: RegExp; what: string }[] = [
  { host: "api.telegram.org", path: /^\/bot/i, what: "Telegram bot API" },
  { host: "discord.com", path: /^\/api\/(?:v\d+\/)?webhooks/i, what: "Discord webhook" },
  { host: "ptb.discord.com", path: /^\/api\/(?:v\d+\/)?webhooks/i, what: "Discord webhook" },
  { host: "canary.discord.com", path: /^\/api\/(?:v\d+\/)?webhooks/i, what: "Discord webhook" },
  { host: "discordapp.com", path: /^\/api\/(?:v\d+\/)?webhooks/i, what: "Discord webhook" },
  { host: "hooks.slack.com", path: /^\/services/i, what: "Slack incoming webhook" },
];

/**
 * A URL as every rule that names a host or a path matches it: parsed as browsers parse it
 * (WHATWG), the host in lower case without its trailing dots (`API.TELEGRAM.ORG.` is
 * `api.telegram.org`), the path percent-decoded once (`/%62ot` is `/bot`), as the server that
 * receives the request reads it.
 */
export interface ScanUrl {
  /** The URL as parsed (what Web Risk is asked about). */
  href: string;
  host: string;
  path: string;
}

/** A path with its percent-escapes decoded (a malformed escape stays as written). */
function decodePath(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path.replace(/%[0-9a-f]{2}/gi, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
  }
}

/** A host name as matched: lower case, no trailing dots. */
export function normalHost(host: string): string {
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 46 /* . */) end--;
  return host.slice(0, end).toLowerCase();
}

/**
 * The http(s) URL a reference names, resolved against `base` (a <base href>, or the drop's own
 * origin) and normalised; null for other schemes and for what does not parse.
 */
export function resolveUrl(raw: string, base: string = OWN_ORIGIN): ScanUrl | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return { href: url.href, host: normalHost(url.hostname), path: decodePath(url.pathname) };
}

/** The base a document's relative URLs resolve against: its <base href> when that parses, else the drop's own. */
export function baseFor(href: string | null): string {
  if (href === null) return OWN_ORIGIN;
  return resolveUrl(href)?.href ?? OWN_ORIGIN;
}

/** Whether a URL leaves the drop: its host is neither the drop's own nor one of `ownHosts` (lower case). */
export function isOffsite(url: ScanUrl, ownHosts: ReadonlySet<string>): boolean {
  return url.host !== OWN_HOST && !ownHosts.has(url.host);
}

/** The known collection endpoint a URL names, or null. */
export function exfiltrationEndpoint(url: ScanUrl): string | null {
  for (const e of EXFILTRATION_ENDPOINTS) if (url.host === e.host && e.path.test(url.path)) return e.what;
  return null;
}
