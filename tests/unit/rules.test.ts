import { describe, expect, it } from "vitest";
import { reportLines, rulesLine } from "@/lib/deploy/report-text";
import { limits, RULE_REFUSALS_LISTED } from "@/lib/plans";
import { compileRules, expandTarget, firstRedirect, headersFor } from "@/lib/rules/match";
import { parseHeaders, parseRedirects, refusalMessage, type Parsed } from "@/lib/rules/parse";
import { matchPattern, parsePattern, pathSegments } from "@/lib/rules/pattern";
import type { HeaderRule, RedirectRule } from "@/lib/rules/types";

const L = limits.free;

function ok<T>(p: Parsed<T>): T[] {
  if (!p.ok) throw new Error(refusalMessage(p.refusal));
  return p.rules;
}

function refused<T>(p: Parsed<T>): string {
  if (p.ok) throw new Error("expected a refusal");
  return refusalMessage(p.refusal);
}

describe("_redirects: from to [status][!]", () => {
  it.each([
    ["/a /b", 301, false],
    ["/a /b 301", 301, false],
    ["/a /b 302", 302, false],
    ["/a /b 303", 303, false],
    ["/a /b 307", 307, false],
    ["/a /b 308", 308, false],
    ["/a /b 200", 200, false],
    ["/a /b 404", 404, false],
    ["/a /b 200!", 200, true],
    ["/a /b 301!", 301, true],
    ["/a /b !", 301, true],
    ["/a\t\t/b   302", 302, false],
  ])("%j → status %i, force %s", (line, status, force) => {
    expect(ok(parseRedirects(line, L))).toEqual([{ line: 1, from: "/a", to: "/b", status, force }]);
  });

  it("comments, blank lines, CRLF and a BOM are accepted; line numbers count every line", () => {
    const rules = ok(
      parseRedirects("\uFEFF# moved pages\r\n\r\n/old /new 301 # trailing comment\r\n   \n/x/* /y/:splat\n", L),
    );
    expect(rules).toEqual([
      { line: 3, from: "/old", to: "/new", status: 301, force: false },
      { line: 5, from: "/x/*", to: "/y/:splat", status: 301, force: false },
    ]);
  });

  it.each([
    ["/a", "_redirects line 2: /a (a rule is: from to [status][!])"],
    [
      "/a /b 305",
      "_redirects line 2: /a /b 305 (the status is one of 200, 301, 302, 303, 307, 308, 404, optionally followed by !)",
    ],
    [
      "/a /b 200!!",
      "_redirects line 2: /a /b 200!! (the status is one of 200, 301, 302, 303, 307, 308, 404, optionally followed by !)",
    ],
    [
      "/a /b 301 Country=us",
      "_redirects line 2: /a /b 301 Country=us (a rule is: from to [status][!]; conditions (Country, Language, Role, Cookie) are not supported)",
    ],
    [
      "/a https://evil.example/x 200",
      "_redirects line 2: /a https://evil.example/x 200 (a 200 rewrite serves a path of this drop, never another host)",
    ],
    [
      "/a https://evil.example/x 404",
      "_redirects line 2: /a https://evil.example/x 404 (a 404 rewrite serves a path of this drop, never another host)",
    ],
    [
      "/a //evil.example/x",
      "_redirects line 2: /a //evil.example/x (a target is a path of this drop (/…) or an http(s) URL)",
    ],
    ["/a /\\evil.example", "_redirects line 2: /a /\\evil.example (a target has no backslash)"],
    [
      "/a javascript:alert(1)",
      "_redirects line 2: /a javascript:alert(1) (a target is a path of this drop (/…) or an http(s) URL)",
    ],
    ["/a b", "_redirects line 2: /a b (a target is a path of this drop (/…) or an http(s) URL)"],
    [
      "/:host/* https://:host.example/",
      "_redirects line 2: /:host/* https://:host.example/ (a placeholder cannot change the target's host)",
    ],
    [
      "/* https://example.com:splat",
      "_redirects line 2: /* https://example.com:splat (a placeholder cannot change the target's host)",
    ],
    ["/a /b/:id", "_redirects line 2: /a /b/:id (:id is not captured by the path)"],
    ["/a /b/:splat", "_redirects line 2: /a /b/:splat (:splat needs a * in the path)"],
    ["/a/*/b /c", "_redirects line 2: /a/*/b /c (* stands only for the last segment (/folder/*))"],
    ["/a* /c", "_redirects line 2: /a* /c (* stands only for a whole last segment (/folder/*))"],
    ["/:a/:a /c", "_redirects line 2: /:a/:a /c (:a appears twice)"],
    ["/a?x=1 /c", "_redirects line 2: /a?x=1 /c (query and fragment matching are not supported)"],
    [
      "https://other.example/a /c",
      "_redirects line 2: https://other.example/a /c (a rule matches paths of this drop; a host is not supported in the path)",
    ],
    ["a /c", "_redirects line 2: a /c (a path starts with /)"],
    ["/a/../b /c", "_redirects line 2: /a/../b /c (a path segment cannot name a file)"],
    ["/a /b\r 301", "_redirects line 2: /a /b\\u000d 301 (contains a control character)"],
  ])("refuses %j naming the line", (line, message) => {
    expect(refused(parseRedirects(`# first\n${line}\n/ok /fine`, L))).toBe(message);
  });

  it("refuses a file that is not UTF-8, naming the line", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode("/a /b\n/c /d"), 0xff, 0x0a]);
    expect(refused(parseRedirects(bytes, L))).toMatch(/^_redirects line 2: .* \(not UTF-8 text\)$/);
  });

  it(`takes ${L.redirectRules} rules and refuses the next, naming the limit`, () => {
    const lines = Array.from({ length: L.redirectRules }, (_, i) => `/p${i} /q${i}`);
    expect(ok(parseRedirects(lines.join("\n"), L))).toHaveLength(L.redirectRules);
    const over = refused(parseRedirects([...lines, "/last /x"].join("\n"), L));
    expect(over).toBe(
      `_redirects line ${L.redirectRules + 1}: /last /x (over the limit of ${L.redirectRules} redirect rules)`,
    );
  });

  it(`takes lines of ${L.ruleLineChars} characters and refuses longer ones`, () => {
    const at = `/a /${"b".repeat(L.ruleLineChars - 4)}`;
    expect(at).toHaveLength(L.ruleLineChars);
    expect(ok(parseRedirects(at, L))).toHaveLength(1);
    expect(refused(parseRedirects(`${at}b`, L))).toMatch(
      new RegExp(`^_redirects line 1: .*… \\(longer than ${L.ruleLineChars} characters\\)$`),
    );
    // A long comment is a long line too.
    expect(refused(parseRedirects(`#${"x".repeat(L.ruleLineChars)}`, L))).toContain("longer than");
  });
});

describe("_headers: path blocks with indented Name: value lines", () => {
  it("parses blocks, comments and repeated names", () => {
    const rules = ok(
      parseHeaders(
        "# isolation\n/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n\n/assets/*\n\tCache-Control: public, max-age=31536000, immutable\n  Link: </a.css>; rel=preload\n  Link: </b.css>; rel=preload\n/:lang/x\n  Content-Language: x\n",
        L,
      ),
    );
    expect(rules).toEqual([
      {
        line: 2,
        path: "/*",
        headers: [
          ["Cross-Origin-Opener-Policy", "same-origin"],
          ["Cross-Origin-Embedder-Policy", "require-corp"],
        ],
      },
      {
        line: 6,
        path: "/assets/*",
        headers: [
          ["Cache-Control", "public, max-age=31536000, immutable"],
          ["Link", "</a.css>; rel=preload"],
          ["Link", "</b.css>; rel=preload"],
        ],
      },
      { line: 10, path: "/:lang/x", headers: [["Content-Language", "x"]] },
    ] satisfies HeaderRule[]);
  });

  it.each([
    "Content-Length",
    "Transfer-Encoding",
    "Content-Encoding",
    "Connection",
    "Set-Cookie",
    "set-cookie",
    "ETag",
    "Location",
    "Vercel-CDN-Cache-Control",
    "X-Dropsite-Rewrite",
  ])("refuses %s with its line", (name) => {
    expect(refused(parseHeaders(`/*\n  X-Frame-Options: DENY\n  ${name}: 1\n`, L))).toMatch(
      new RegExp(`^_headers line 3: ${name}: 1 \\(${name} cannot be set: .*\\)$`),
    );
  });

  it("X-Content-Type-Options stays nosniff", () => {
    expect(ok(parseHeaders("/*\n  X-Content-Type-Options: nosniff", L))).toHaveLength(1);
    expect(refused(parseHeaders("/*\n  X-Content-Type-Options: sniff", L))).toBe(
      "_headers line 2: X-Content-Type-Options: sniff (X-Content-Type-Options stays nosniff)",
    );
  });

  it.each([
    ["  X-A: 1", "_headers line 1: X-A: 1 (a header line needs a path line above it)"],
    ["/a\n/b\n  X-A: 1", "_headers line 1: /a (a path needs at least one indented Name: value line below it)"],
    ["/a\n  X-A: 1\n/b", "_headers line 3: /b (a path needs at least one indented Name: value line below it)"],
    ["/a\n  X-A", "_headers line 2: X-A (a header line is Name: value)"],
    ["/a\n  X A: 1", "_headers line 2: X A: 1 (a header name is letters, digits and -)"],
    ["/a\n  X-A:", "_headers line 2: X-A: (the header has no value)"],
    ["/a\n  X-A: café", "_headers line 2: X-A: café (a header value is printable ASCII (percent-encode URLs))"],
    ["/a X-A: 1", "_headers line 1: /a X-A: 1 (a path line holds one path; header lines below it are indented)"],
    [
      "https://x.example/*\n  X-A: 1",
      "_headers line 1: https://x.example/* (a rule matches paths of this drop; a host is not supported)",
    ],
    ["/a\n  X-A: 1\r\n  X-B: 2\rX-C: 3", "_headers line 3: X-B: 2\\u000dX-C: 3 (contains a control character)"],
    // A path whose only header line is refused as text: the cause alone, not "needs a line" too.
    ["/a\n  X-A: 1\u0001", "_headers line 2: X-A: 1\\u0001 (contains a control character)"],
    // A refused path line keeps its header lines to itself (none of them joins another path).
    ["/a\u0007\n  X-A: 1", "_headers line 1: /a\\u0007 (contains a control character)"],
  ])("refuses %j", (text, message) => {
    expect(refused(parseHeaders(text, L))).toBe(message);
  });

  it(`takes ${L.headerRules} path blocks and refuses the next, naming the limit`, () => {
    const blocks = Array.from({ length: L.headerRules }, (_, i) => `/p${i}\n  X-N: ${i}`);
    expect(ok(parseHeaders(blocks.join("\n"), L))).toHaveLength(L.headerRules);
    expect(refused(parseHeaders([...blocks, "/last\n  X-N: x"].join("\n"), L))).toBe(
      `_headers line ${2 * L.headerRules + 1}: /last (over the limit of ${L.headerRules} header rules)`,
    );
  });
});

describe("_redirects as Netlify users write it (round 4)", () => {
  it.each([
    ["/admin/* 200", false],
    ["/admin/* 200!", true],
  ])("the forward shorthand %j rewrites to the same path, * as :splat", (line, force) => {
    expect(ok(parseRedirects(line, L))).toEqual([
      { line: 1, from: "/admin/*", to: "/admin/:splat", status: 200, force },
    ]);
    expect(ok(parseRedirects("/* 200", L))).toEqual([
      { line: 1, from: "/*", to: "/:splat", status: 200, force: false },
    ]);
  });

  it.each(["/admin 200", "/admin/* 301", "/admin/* 404", "/admin/:x 200!"])(
    "refuses %j: the shorthand needs a path ending in /* and 200",
    (line) => {
      expect(refused(parseRedirects(line, L))).toBe(
        `_redirects line 1: ${line} (a rule without a target is the forward shorthand: a path ending in /* with status 200 or 200!)`,
      );
    },
  );

  it.each([
    "/.netlify/functions/* /api/:splat 200",
    "/.netlify /x",
    "/%2Enetlify/x /y",
    "/.well-known/dropsite/* /x 200",
    "/.well-known/dropsite /x",
  ])("refuses the reserved source of %j", (line) => {
    expect(refused(parseRedirects(line, L))).toBe(
      `_redirects line 1: ${line} (paths under /.netlify/ and /.well-known/dropsite/ are reserved)`,
    );
  });

  it("other paths that look alike are not reserved", () => {
    expect(
      ok(parseRedirects("/.well-known/security.txt /security.txt\n/netlify/* /n/:splat\n/.well-known/* /w 200", L)),
    ).toHaveLength(3);
  });

  it.each(["/store id=:id /blog/:id 301", "/store id=:id /blog/:id", "/articles id=:id tag=:tag /posts/:tag/:id 301!"])(
    "refuses query matching %j as not supported, not as a bad status",
    (line) => {
      expect(refused(parseRedirects(line, L))).toBe(`_redirects line 1: ${line} (query matching is not supported)`);
    },
  );

  it("names every bad line in line order; the message names the first", () => {
    const p = parseRedirects("/ok /fine\n/a /b 305\n/good /x\n/store id=:id /b\n/.netlify/x /y\n/c\n/last /z", L);
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(refusalMessage(p.refusal)).toBe(
      "_redirects line 2: /a /b 305 (the status is one of 200, 301, 302, 303, 307, 308, 404, optionally followed by !)",
    );
    expect(p.refusals.map((r) => [r.line, r.reason])).toEqual([
      [2, "the status is one of 200, 301, 302, 303, 307, 308, 404, optionally followed by !"],
      [4, "query matching is not supported"],
      [5, "paths under /.netlify/ and /.well-known/dropsite/ are reserved"],
      [6, "a rule is: from to [status][!]"],
    ]);
  });

  it(`lists at most ${RULE_REFUSALS_LISTED} bad lines, the first ones`, () => {
    const lines = Array.from({ length: RULE_REFUSALS_LISTED + 10 }, (_, i) => `/p${i}`);
    const p = parseRedirects(lines.join("\n"), L);
    if (p.ok) throw new Error("expected a refusal");
    expect(p.refusals).toHaveLength(RULE_REFUSALS_LISTED);
    expect(p.refusals.map((r) => r.line)).toEqual(Array.from({ length: RULE_REFUSALS_LISTED }, (_, i) => i + 1));
  });

  it("a file that is not UTF-8 names its bad lines and the others' faults too", () => {
    const enc = new TextEncoder();
    const bytes = new Uint8Array([...enc.encode("/a /b\n"), 0xff, 0x0a, ...enc.encode("/c\n"), 0xfe]);
    const p = parseRedirects(bytes, L);
    if (p.ok) throw new Error("expected a refusal");
    expect(p.refusals.map((r) => [r.line, r.reason])).toEqual([
      [2, "not UTF-8 text"],
      [3, "a rule is: from to [status][!]"],
      [4, "not UTF-8 text"],
    ]);
  });
});

describe("_headers: bounded header blocks (round 4)", () => {
  const block = (path: string, n: number, valueChars = 10) =>
    [path, ...Array.from({ length: n }, (_, i) => `  X-H${i}: ${"v".repeat(valueChars)}`)].join("\n");

  it(`takes ${L.headerLinesPerRule} header lines in one path block and refuses the next, naming the line`, () => {
    expect(ok(parseHeaders(block("/*", L.headerLinesPerRule), L))[0]!.headers).toHaveLength(L.headerLinesPerRule);
    expect(refused(parseHeaders(block("/*", L.headerLinesPerRule + 5), L))).toBe(
      `_headers line ${L.headerLinesPerRule + 2}: X-H${L.headerLinesPerRule}: vvvvvvvvvv (over the limit of ${L.headerLinesPerRule} header lines in one path block)`,
    );
  });

  it(`refuses one block adding more than ${L.addedHeaderBytes} bytes, at the line that crosses it`, () => {
    // Each line adds "X-Hn: " + 900 bytes + CRLF (908 bytes); the 10th (line 11) crosses 8 KB.
    const text = block("/*", 20, 900);
    const p = parseHeaders(text, L);
    if (p.ok) throw new Error("expected a refusal");
    expect(p.refusals).toHaveLength(1);
    expect(p.refusal.line).toBe(11);
    expect(p.refusal.reason).toBe(`over the limit of ${L.addedHeaderBytes} bytes of headers on one response`);
    expect(ok(parseHeaders(block("/*", 9, 900), L))).toHaveLength(1);
  });

  it("counts the blocks that can match one path together; blocks that never meet do not add up", () => {
    const five = (path: string) => block(path, 5, 900);
    // /assets/* and /* both match /assets/app.js: 9,080 bytes on its response.
    expect(refused(parseHeaders(`${five("/*")}\n${five("/assets/*")}`, L))).toBe(
      `_headers line 1: /* (over the limit of ${L.addedHeaderBytes} bytes of headers on one response, with the other rules matching its paths)`,
    );
    expect(refused(parseHeaders(`${five("/docs/:page")}\n${five("/:section/intro")}`, L))).toContain(
      "with the other rules matching its paths",
    );
    // Different literals, or lengths no splat reaches, never meet.
    expect(ok(parseHeaders(`${five("/assets/*")}\n${five("/docs/*")}`, L))).toHaveLength(2);
    expect(ok(parseHeaders(`${five("/a/:x")}\n${five("/a/:x/:y")}\n${five("/b")}`, L))).toHaveLength(3);
  });

  it("names every bad line of _headers; a refused path's lines are checked but never kept", () => {
    const p = parseHeaders("/ok\n  X-A: 1\nhttps://x.example/*\n  Set-Cookie: a=b\n/b\n  X-B\n/c\n  X-C: 1", L);
    if (p.ok) throw new Error("expected a refusal");
    expect(p.refusals.map((r) => r.line)).toEqual([3, 4, 6]);
  });
});

describe("patterns", () => {
  const m = (pattern: string, path: string) => {
    const p = parsePattern(pattern);
    if ("error" in p) throw new Error(p.error);
    return matchPattern(p, pathSegments(path));
  };
  it.each([
    ["/", "", {}],
    ["/", "a", null],
    ["/a", "a", {}],
    ["/a", "a/", {}],
    ["/a/", "a", {}],
    ["/a", "A", null],
    ["/a", "a/b", null],
    ["/blog/:year/:slug", "blog/2024/hello", { year: "2024", slug: "hello" }],
    ["/blog/:year/:slug", "blog/2024", null],
    ["/news/*", "news", { splat: "" }],
    ["/news/*", "news/a/b.html", { splat: "a/b.html" }],
    ["/*", "", { splat: "" }],
    ["/*", "x/y", { splat: "x/y" }],
    ["/:lang/x", "fr/x", { lang: "fr" }],
    ["/caf%C3%A9", "café", {}],
  ])("%s against %j", (pattern, path, expected) => {
    expect(m(pattern, path)).toEqual(expected);
  });
});

describe("matching compiled rules", () => {
  const rules = (redirects: Omit<RedirectRule, "line">[], headers: Omit<HeaderRule, "line">[] = []) =>
    compileRules({
      redirects: redirects.map((r, i) => ({ ...r, line: i + 1 })),
      headers: headers.map((h, i) => ({ ...h, line: i + 1 })),
    })!;

  it("first match wins, across indexed and wildcard rules, in file order", () => {
    const c = rules([
      { from: "/a/x", to: "/1", status: 301, force: false },
      { from: "/:any/y", to: "/2", status: 301, force: false },
      { from: "/a/*", to: "/3", status: 301, force: false },
      { from: "/*", to: "/4", status: 301, force: false },
    ]);
    const to = (path: string) => {
      const hit = firstRedirect(c, pathSegments(path), () => false);
      return hit && expandTarget(hit.rule.target, hit.values);
    };
    expect([to("a/x"), to("a/y"), to("a/z"), to("b/z"), to("")]).toEqual(["/1", "/2", "/3", "/4", "/4"]);
  });

  it("a rule without ! yields to a file; a forced rule does not", () => {
    const c = rules([
      { from: "/page", to: "/soft", status: 301, force: false },
      { from: "/page", to: "/hard", status: 301, force: true },
    ]);
    expect(firstRedirect(c, ["page"], () => false)?.rule.target.parts).toEqual([{ text: "/soft" }]);
    expect(firstRedirect(c, ["page"], () => true)?.rule.target.parts).toEqual([{ text: "/hard" }]);
  });

  it("placeholder values are percent-encoded: no CR, LF, second header or other host", () => {
    const c = rules([
      { from: "/r/*", to: "/:splat", status: 302, force: false },
      { from: "/x/:v/*", to: "https://example.com/:v/:splat?a=1", status: 302, force: false },
    ]);
    const target = (segs: string[]) => {
      const hit = firstRedirect(c, segs, () => false)!;
      return expandTarget(hit.rule.target, hit.values);
    };
    expect(target(["r", "a\r\nSet-Cookie: x=1"])).toBe("/a%0D%0ASet-Cookie%3A%20x%3D1");
    expect(target(["r", "\\evil.example"])).toBe("/%5Cevil.example");
    expect(target(["r", "evil.example", "p"])).toBe("/evil.example/p");
    expect(target(["x", "@evil.example", "q"])).toBe("https://example.com/%40evil.example/q?a=1");
    expect(target(["x", "..", "q"])).toBe("https://example.com/../q?a=1");
  });

  it("an empty splat cannot make a path target start with //", () => {
    const c = rules([{ from: "/old/*", to: "/:splat/evil.example", status: 302, force: false }]);
    const hit = firstRedirect(c, ["old"], () => false)!;
    expect(expandTarget(hit.rule.target, hit.values)).toBe("/%2Fevil.example");
  });

  it("headers of every matching rule are combined in file order", () => {
    const c = rules(
      [],
      [
        {
          path: "/*",
          headers: [
            ["X-Frame-Options", "DENY"],
            ["Link", "</a>"],
          ],
        },
        {
          path: "/assets/*",
          headers: [
            ["Cache-Control", "public, max-age=60"],
            ["link", "</b>"],
          ],
        },
        { path: "/:lang/x", headers: [["Content-Language", "any"]] },
        { path: "/other", headers: [["X-Other", "1"]] },
      ],
    );
    expect(Object.fromEntries(headersFor(c, ["assets", "x"])!)).toEqual({
      "x-frame-options": ["X-Frame-Options", "DENY"],
      link: ["Link", "</a>, </b>"],
      "cache-control": ["Cache-Control", "public, max-age=60"],
      "content-language": ["Content-Language", "any"],
    });
    expect([...headersFor(c, ["other"])!.keys()]).toEqual(["x-frame-options", "link", "x-other"]);
  });

  it("the headers of a path are remembered per drop, the same on a hit, past the paths it keeps", () => {
    const c = rules([], [{ path: "/docs/*", headers: [["X-Docs", "1"]] }]);
    for (let round = 0; round < 2; round++) {
      // More distinct paths than the memory holds (1024), each asked twice.
      for (let i = 0; i < 1500; i++) {
        for (let hit = 0; hit < 2; hit++) {
          expect(headersFor(c, ["docs", `p${i}`])?.get("x-docs")).toEqual(["X-Docs", "1"]);
          expect(headersFor(c, ["blog", `p${i}`])).toBeUndefined();
        }
      }
    }
    expect(c.headerCache!.size).toBeLessThanOrEqual(1024);
    expect(c.headerCache!.size).toBeGreaterThan(1000);
  });

  it("no rules compile to nothing (the serve path skips rules)", () => {
    expect(compileRules(null)).toBeUndefined();
    expect(compileRules({ redirects: [], headers: [] })).toBeUndefined();
  });
});

describe("the counts in text (CLI and MCP)", () => {
  it("a report with rules says how many; one without says nothing about them", () => {
    expect(reportLines({ missing_references: [], warnings: [], redirect_rules: 3, header_rules: 1 }, 10, "x")).toEqual([
      "Site rules: 3 redirect rules, 1 header rule.",
    ]);
    expect(reportLines({ missing_references: [], warnings: [], redirect_rules: 0, header_rules: 0 }, 10, "x")).toEqual(
      [],
    );
    expect(rulesLine({ redirect_rules: 1, header_rules: 0 })).toBe("Site rules: 1 redirect rule, 0 header rules.");
  });
});
