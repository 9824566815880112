import { describe, expect, it } from "vitest";
import { classify, countryCode, referrerHost, UNFURLERS } from "@/lib/stats/classify";
import { isbot } from "isbot";

// Who a request counts for (lib/stats/classify.ts): link unfurlers first (a table), then isbot,
// then people; country codes from a trusted proxy header; referrer hosts.

describe("classify", () => {
  it.each([
    ["Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "preview"],
    ["Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "preview"],
    ["Twitterbot/1.0", "preview"],
    ["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "preview"],
    ["facebookexternalhit/1.1 Facebot Twitterbot/1.0", "preview"],
    ["LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", "preview"],
    ["Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5", "preview"],
    ["WhatsApp/2.23.20.0", "preview"],
    ["TelegramBot (like TwitterBot)", "preview"],
    ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "bot"],
    ["curl/8.11.0", "bot"],
    ["python-requests/2.32.3", "bot"],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "person"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "person",
    ],
  ])("%s is a %s", (ua, kind) => {
    expect(classify(ua)).toBe(kind);
    // Asked again (from the remembered answers), the same.
    expect(classify(ua)).toBe(kind);
  });

  it("recognises unfurlers before isbot, which names most of them bots too", () => {
    expect(UNFURLERS.map((u) => u.name)).toEqual(
      expect.arrayContaining(["Slack", "Discord", "X", "Facebook", "LinkedIn", "Microsoft Teams"]),
    );
    expect(isbot("Slackbot-LinkExpanding 1.0")).toBe(true);
    expect(classify("Slackbot-LinkExpanding 1.0")).toBe("preview");
  });
});

describe("countryCode", () => {
  it.each([
    ["DE", "DE"],
    ["de", "DE"],
    [" FR ", "FR"],
    ["XX", "unknown"],
    ["T1", "unknown"],
    ["ZZ", "unknown"],
    ["EU", "unknown"],
    ["QM", "unknown"],
    ["USA", "unknown"],
    ["", "unknown"],
  ])("%j counts as %s", (raw, code) => {
    expect(countryCode(raw)).toBe(code);
  });
});

describe("referrerHost", () => {
  it.each([
    ["https://News.Example.com/item?id=1", "news.example.com"],
    ["http://localhost:3000/x", "localhost:3000"],
    ["https://example.org:443/", "example.org"],
    ["android-app://com.slack/", undefined],
    ["not a url", undefined],
    [null, undefined],
    ["https://bücher.example/", "xn--bcher-kva.example"],
    ["https://192.0.2.1/", "192.0.2.1"],
    ["https://[2001:db8::1]:8443/", "[2001:db8::1]:8443"],
  ])("%j is %j", (raw, host) => {
    expect(referrerHost(raw)).toBe(host);
  });

  // A view from such a referrer is counted without one: nothing of it enters the drop's counts.
  it.each([
    ["a host over 253 characters", `https://${Array.from({ length: 5 }, () => "a".repeat(60)).join(".")}.example/`],
    ["a label over 63 characters", `https://${"a".repeat(64)}.example/`],
    ["characters no hostname has", "https://exa!mple.com/"],
    ["braces and a dollar", "https://a{b}$.example/"],
    ["an empty label", "https://a..b.example/"],
    ["a label that starts with a hyphen", "https://-x.example/"],
  ])("%s: no referrer", (_what, raw) => {
    expect(referrerHost(raw)).toBeUndefined();
  });
});
