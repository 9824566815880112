// URLs as the scan reads them: resolved the way a browser on the drop's host would, and
// judged against the drop's own hosts and the table of known collection endpoints.

/** Stands for the drop's own origin while resolving relative URLs. */
const OWN_ORIGIN = "https://drop.invalid/";
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
 * The http(s) URL a reference names, resolved against `base` (a <base href>, or the drop's own
 * origin); null for other schemes and for what does not parse.
 */
export function resolveUrl(raw: string, base: string = OWN_ORIGIN): URL | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/** The base a document's relative URLs resolve against: its <base href> when that parses, else the drop's own. */
export function baseFor(href: string | null): string {
  if (href === null) return OWN_ORIGIN;
  return resolveUrl(href)?.href ?? OWN_ORIGIN;
}

/** Whether a URL leaves the drop: its host is neither the drop's own nor one of `ownHosts` (lower case). */
export function isOffsite(url: URL, ownHosts: ReadonlySet<string>): boolean {
  return url.hostname !== OWN_HOST && !ownHosts.has(url.hostname);
}

/** The known collection endpoint a URL names, or null. */
export function exfiltrationEndpoint(url: URL): string | null {
  for (const e of EXFILTRATION_ENDPOINTS) if (url.hostname === e.host && e.path.test(url.pathname)) return e.what;
  return null;
}
