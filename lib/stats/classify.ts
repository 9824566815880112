import { isbot } from "isbot";
import { isHostname } from "../hostname";

// Who asked, for the counts: a link unfurler (a chat or social app fetching a preview of a
// shared link), another bot (the maintained `isbot` package decides), or a person. Unfurlers
// are recognised first: most of them also match isbot, and they count only as previews.

/** Link unfurlers by user agent: each a chat or social app's preview fetcher. */
export const UNFURLERS: readonly { name: string; pattern: RegExp }[] = [
  { name: "Slack", pattern: /Slackbot-LinkExpanding|Slack-ImgProxy|Slackbot\b/i },
  { name: "Discord", pattern: /Discordbot/i },
  { name: "X", pattern: /Twitterbot/i },
  // iMessage sends "facebookexternalhit/1.1 Facebot Twitterbot/1.0"; matched here either way.
  { name: "Facebook", pattern: /facebookexternalhit|Facebot|facebookcatalog/i },
  { name: "LinkedIn", pattern: /LinkedInBot/i },
  { name: "Microsoft Teams", pattern: /SkypeUriPreview|MicrosoftPreview|Teams\//i },
  { name: "WhatsApp", pattern: /WhatsApp\//i },
  { name: "Telegram", pattern: /TelegramBot/i },
  { name: "Mastodon", pattern: /Mastodon\//i },
  { name: "Bluesky", pattern: /Bluesky Cardyb/i },
  { name: "Pinterest", pattern: /Pinterestbot/i },
  { name: "Reddit", pattern: /redditbot/i },
  { name: "Snapchat", pattern: /Snap URL Preview/i },
  { name: "VK", pattern: /vkShare/i },
  { name: "Embedly", pattern: /Embedly/i },
  { name: "Iframely", pattern: /Iframely/i },
  { name: "Google Chat", pattern: /Google-PageRenderer|GoogleDocs/i },
];

export type Visitor = "person" | "bot" | "preview";

const KNOWN_MAX = 2000;
const known = new Map<string, Visitor>();

/** What kind of client a user agent names; the answer for a user agent is remembered. */
export function classify(userAgent: string): Visitor {
  const hit = known.get(userAgent);
  if (hit) return hit;
  const kind: Visitor = UNFURLERS.some((u) => u.pattern.test(userAgent))
    ? "preview"
    : isbot(userAgent)
      ? "bot"
      : "person";
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(userAgent, kind);
  return kind;
}

const regions = new Intl.DisplayNames(["en"], { type: "region" });
/** Two letters that are no country's ISO 3166 alpha-2 code, though Intl names them. */
const NOT_COUNTRIES = new Set(["ZZ", "EU", "EZ", "UK", "UN"]);
const codes = new Map<string, string>();

/** An ISO 3166 alpha-2 code as sent by a trusted proxy (CF-IPCountry …), or "unknown" (XX, T1, …). */
export function countryCode(raw: string): string {
  const hit = codes.get(raw);
  if (hit) return hit;
  const up = raw.trim().toUpperCase();
  let code = "unknown";
  if (/^[A-Z]{2}$/.test(up) && !NOT_COUNTRIES.has(up)) {
    try {
      if (regions.of(up) !== up) code = up;
    } catch {
      // not a region code
    }
  }
  if (codes.size >= KNOWN_MAX) codes.clear();
  codes.set(raw, code);
  return code;
}

const referrers = new Map<string, string | undefined>();

/** The host of a Referer header (with a port that is not the default), lower-case; undefined when it names none (or is no http URL). Remembered per header value. */
export function referrerHost(referer: string | null): string | undefined {
  if (!referer) return undefined;
  const hit = referrers.get(referer);
  if (hit !== undefined || referrers.has(referer)) return hit;
  let host: string | undefined;
  try {
    const u = new URL(referer);
    // A host no hostname could be (over 253 characters, characters outside letters, digits and
    // hyphens) is counted as no referrer: nothing of it is stored.
    if ((u.protocol === "http:" || u.protocol === "https:") && isHostname(u.hostname.toLowerCase()))
      host = u.host.toLowerCase() || undefined;
  } catch {
    host = undefined;
  }
  if (referrers.size >= KNOWN_MAX) referrers.clear();
  referrers.set(referer, host);
  return host;
}
