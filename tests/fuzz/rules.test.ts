import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { limits } from "@/lib/plans";
import { compileRules, expandTarget, firstRedirect, headersFor } from "@/lib/rules/match";
import { parseHeaders, parseRedirects, parseTarget, refusedHeader, type Parsed } from "@/lib/rules/parse";
import { captures, matchPattern, parsePattern, type Pattern } from "@/lib/rules/pattern";
import { REDIRECT_STATUSES, type HeaderRule, type RedirectRule } from "@/lib/rules/types";
import { check } from "../support/fuzz";

// Properties of the site-rule parsers: no input crashes them, everything they accept is inside
// the grammar (and within the limits), and no accepted rule, whatever the request path, makes a
// Location that leaves the drop's host (path targets) or the named host (URL targets), or that
// carries a character a header cannot (CR, LF, space, controls).

const L = { ...limits.free, redirectRules: 20, headerRules: 10, ruleLineChars: 120 };

/** Pieces that make lines near the grammar, so that many inputs parse and the rest fail in interesting places. */
const piece = fc.constantFrom(
  "/",
  "/a",
  "/b/",
  ":x",
  "/:x",
  "/:y",
  "*",
  "/*",
  "/:splat",
  " ",
  "\t",
  "  ",
  "!",
  "200",
  "301",
  "302!",
  "404",
  "404!",
  "308",
  "999",
  "https://",
  "http://",
  "example.com",
  "evil.example",
  "//",
  "/\\",
  "\\",
  "?q=1",
  "#f",
  "%2F",
  "%0D%0A",
  "%zz",
  "é",
  "\uD800",
  "😀",
  "\r",
  "\r\n",
  "\n",
  "\u0000",
  "#",
  ":",
  "@",
  "..",
  "Cache-Control: no-store",
  "Set-Cookie: a=1",
  "X-Content-Type-Options: sniff",
  "Access-Control-Allow-Origin: *",
  "  X-A: 1",
  "\n  ",
  "Name:",
  ": v",
);
const nearGrammar = fc.array(piece, { maxLength: 40 }).map((ps) => ps.join(""));
const anyText = fc.oneof(
  nearGrammar,
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 200 }),
);
const anyBytes = fc.oneof(
  anyText.map((s) => new TextEncoder().encode(s)),
  fc.uint8Array({ maxLength: 300 }),
);

function lineCount(input: string | Uint8Array): number {
  const text = typeof input === "string" ? input : new TextDecoder().decode(input);
  return text.split("\n").length;
}

function checkRefusal<T>(p: Parsed<T>, file: string, input: string | Uint8Array): void {
  if (p.ok) return;
  expect(p.refusal.file).toBe(file);
  expect(Number.isInteger(p.refusal.line) && p.refusal.line >= 1 && p.refusal.line <= lineCount(input)).toBe(true);
  expect(p.refusal.reason.length).toBeGreaterThan(0);
}

function inGrammarRedirect(r: RedirectRule): void {
  expect((REDIRECT_STATUSES as readonly number[]).includes(r.status)).toBe(true);
  const pattern = parsePattern(r.from);
  expect("error" in pattern).toBe(false);
  if ("error" in pattern) return;
  const target = parseTarget(r.to, captures(pattern));
  expect(typeof target).not.toBe("string");
  if (typeof target === "string") return;
  if (r.status === 200 || r.status === 404) expect(target.origin).toBe("");
  // eslint-disable-next-line no-control-regex
  expect(/[\s\u0000-\u001f\u007f]/.test(r.from + r.to)).toBe(false);
}

function inGrammarHeaders(h: HeaderRule): void {
  expect("error" in parsePattern(h.path)).toBe(false);
  expect(h.headers.length).toBeGreaterThan(0);
  for (const [name, value] of h.headers) {
    expect(name).toMatch(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
    expect(value).toMatch(/^[\x20-\x7e\t]+$/);
    expect(refusedHeader(name, value)).toBeNull();
  }
}

describe("the _redirects parser", () => {
  it("never throws; what it accepts is inside the grammar and the limits; a refusal names a real line", () => {
    return check(
      fc.property(fc.oneof(anyText, anyBytes), (input) => {
        const p = parseRedirects(input, L);
        checkRefusal(p, "_redirects", input);
        if (!p.ok) return;
        expect(p.rules.length).toBeLessThanOrEqual(L.redirectRules);
        for (const r of p.rules) inGrammarRedirect(r);
      }),
    );
  });

  const segment = fc.oneof(
    fc.constantFrom(
      "a",
      "..",
      "%",
      "\r\n",
      "\\",
      "@evil.example",
      "evil.example",
      "?x",
      "#y",
      " ",
      "é",
      "\uD800",
      ":x",
    ),
    fc.string({ maxLength: 8 }).filter((s) => s !== "" && !s.includes("/")),
  );
  const rulesLine = fc.tuple(
    fc.constantFrom("/*", "/a/*", "/:x/*", "/:x", "/a/:x/*"),
    fc.constantFrom(
      "/:splat",
      "/:splat/evil.example",
      "/b/:splat",
      "https://example.com/:splat",
      "https://example.com/x/:splat?y=1",
      "/:splat?z=1",
      "/x#:splat",
    ),
    fc.constantFrom("301", "302", "307", "200", "404", "302!"),
  );

  it("no request path makes a Location with a header-breaking character, or one that leaves its host", () => {
    return check(
      fc.property(rulesLine, fc.array(segment, { maxLength: 5 }), ([from, to, status], segs) => {
        const names = captures(parsePattern(from) as Exclude<ReturnType<typeof parsePattern>, { error: string }>);
        const parsed = parseRedirects(`${from} ${to} ${status}`, L);
        if (!parsed.ok) {
          // Only targets naming a placeholder the path lacks, or rewrites to another host, are refused.
          expect(parsed.refusal.reason).toMatch(/not captured|needs a \*|never another host/);
          return;
        }
        expect(to.includes(":x") ? names.has("x") : true).toBe(true);
        const compiled = compileRules({ redirects: parsed.rules })!;
        const hit = firstRedirect(compiled, segs, () => false);
        if (!hit) return;
        const location = expandTarget(hit.rule.target, hit.values);
        expect(location).toMatch(/^[\x21-\x7e]+$/);
        if (hit.rule.target.origin) expect(new URL(location).origin).toBe("https://example.com");
        else {
          expect(location.startsWith("/")).toBe(true);
          expect(location[1] === "/" || location[1] === "\\").toBe(false);
          expect(new URL(location, "https://drop.example").host).toBe("drop.example");
        }
      }),
    );
  });
});

describe("the _headers parser", () => {
  it("never throws; what it accepts is inside the grammar, allowed and within the limits", () => {
    return check(
      fc.property(fc.oneof(anyText, anyBytes), (input) => {
        const p = parseHeaders(input, L);
        checkRefusal(p, "_headers", input);
        if (!p.ok) return;
        expect(p.rules.length).toBeLessThanOrEqual(L.headerRules);
        for (const h of p.rules) inGrammarHeaders(h);
        const compiled = compileRules({ headers: p.rules });
        if (compiled) headersFor(compiled, ["a", "b"]);
      }),
    );
  });

  it("a well-formed block of allowed headers always parses, and a refused name is always refused", () => {
    const name = fc.constantFrom(
      "X-Frame-Options",
      "Cache-Control",
      "Access-Control-Allow-Origin",
      "Cross-Origin-Opener-Policy",
      "Content-Security-Policy",
    );
    const bad = fc.constantFrom(
      "Set-Cookie",
      "Content-Length",
      "Transfer-Encoding",
      "Content-Encoding",
      "Connection",
      "ETag",
      "set-cookie",
      "CONTENT-LENGTH",
    );
    const value = fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replace(/[^\x21-\x7e]/g, "v"));
    return check(
      fc.property(fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 5 }), bad, value, (pairs, refused, v) => {
        const block = `/assets/*\n${pairs.map(([n, val]) => `  ${n}: ${val}`).join("\n")}`;
        const p = parseHeaders(block, L);
        expect(p.ok).toBe(true);
        const q = parseHeaders(`${block}\n  ${refused}: ${v}`, L);
        expect(q.ok ? null : q.refusal.line).toBe(pairs.length + 2);
      }),
    );
  });
});

describe("the rule index", () => {
  const seg = fc.constantFrom("a", "b", "c", ":p", ":q", "*");
  const pattern = fc.array(seg, { maxLength: 4 }).map((ss) => {
    const star = ss.indexOf("*");
    const cut = star === -1 ? ss : ss.slice(0, star + 1);
    const seen = new Set<string>();
    return `/${cut.map((x) => (x.startsWith(":") ? (seen.has(x) ? "z" : (seen.add(x), x)) : x)).join("/")}`;
  });
  const path = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 5 });

  it("finds the same first redirect and the same headers as a scan of every rule in file order", () => {
    return check(
      fc.property(
        fc.array(fc.tuple(pattern, fc.boolean()), { minLength: 1, maxLength: 30 }),
        path,
        fc.boolean(),
        (rules, segs, fileAnswers) => {
          const redirects: RedirectRule[] = rules.map(([from, force], i) => ({
            line: i + 1,
            from,
            to: `/t${i}`,
            status: 301,
            force,
          }));
          const headers: HeaderRule[] = rules.map(([from], i) => ({
            line: i + 1,
            path: from,
            headers: [["X-Rule", String(i)]],
          }));
          const compiled = compileRules({ redirects, headers })!;
          const patterns = rules.map(([from]) => parsePattern(from) as Pattern);
          const matching = patterns.flatMap((p, i) => (matchPattern(p, segs) ? [i] : []));
          const expected = matching.find((i) => rules[i]![1] || !fileAnswers);
          const hit = firstRedirect(compiled, segs, () => fileAnswers);
          expect(hit ? expandTarget(hit.rule.target, hit.values) : undefined).toBe(
            expected === undefined ? undefined : `/t${expected}`,
          );
          expect(headersFor(compiled, segs)?.get("x-rule")?.[1]).toBe(
            matching.length ? matching.join(", ") : undefined,
          );
        },
      ),
    );
  });
});
