import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildReport, REPORT_LIST_CAP } from "@/lib/deploy/report";
import { check } from "../support/fuzz";

// Properties of the deploy report over hostile files: it never throws, lists only files of the
// request, stays within its caps, and never carries a planted secret, whatever surrounds it.

const enc = new TextEncoder();

const urlPiece = fc.constantFrom(
  "a.png",
  "../x",
  "/",
  "./",
  "..",
  "%2e%2e/",
  "%zz",
  "?q=1",
  "#f",
  "data:,x",
  "//host/x",
  "http://h/",
  "mailto:x",
  "{{x}}",
  "${x}",
  " ",
  ",",
  "\u0000",
  "é",
  "\\",
  "img/",
  "index.html",
  "about",
  "x.js",
);
const url = fc.array(urlPiece, { maxLength: 6 }).map((a) => a.join(""));
const fragment = fc.oneof(
  url.map((u) => `<img src="${u}">`),
  url.map((u) => `<a href=${u}>`),
  fc.tuple(url, url).map(([a, b]) => `<img srcset="${a} 1x, ${b} 2x">`),
  url.map((u) => `<style>@import "${u}"; .x{background:url(${u})}</style>`),
  url.map((u) => `<script type="module">import x from "./${u}"; import("${u}")</script>`),
  url.map((u) => `<base href="${u}">`),
  fc.constantFrom(
    "<",
    ">",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "<style>",
    '"',
    "'",
    "url(",
    "@import",
    "import",
    "\n",
    "&amp;",
    "<svg><use href='#a'/></svg>",
  ),
  fc.string({ maxLength: 40 }),
);
const document = fc.array(fragment, { maxLength: 30 }).map((a) => a.join(""));
const pathOf = fc.constantFrom("index.html", "a/b.html", "s.css", "m.js", "m.mjs", "data.json", "notes.txt", "x.png");

/** A planted sp_ key: 43 base64url characters, never a literal of this file. */
const plantedKey = fc
  .string({
    unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".split("")),
    minLength: 43,
    maxLength: 43,
  })
  .map((s) => `sp_${s}`);

describe("the deploy report over hostile files", () => {
  it("never throws, lists only the request's files, stays within its caps", () =>
    check(
      fc.property(fc.array(fc.tuple(pathOf, document), { minLength: 1, maxLength: 6 }), (entries) => {
        const files = [...new Map(entries)].map(([path, text]) => ({
          path,
          size: enc.encode(text).byteLength,
          bytes: enc.encode(text),
        }));
        const r = buildReport({ files });
        const paths = new Set<string>(files.map((f) => f.path));
        for (const m of r.missing_references) {
          expect(paths.has(m.path)).toBe(true);
          expect(m.ref).not.toMatch(/[?#]/);
        }
        expect(r.missing_references.length).toBeLessThanOrEqual(REPORT_LIST_CAP);
        expect(r.warnings.length).toBeLessThanOrEqual(REPORT_LIST_CAP);
      }),
    ));

  it("never carries a planted key, whatever surrounds it; a key between separators is reported by kind", () =>
    check(
      fc.property(
        pathOf,
        document,
        document,
        plantedKey,
        fc.constantFrom("", " ", '"', "=", "\n", "a", "/", "?k="),
        (path, before, after, key, sep) => {
          const text = `${before}${sep}${key}${sep}${after}`;
          const r = buildReport({ files: [{ path, size: enc.encode(text).byteLength, bytes: enc.encode(text) }] });
          const json = JSON.stringify(r);
          expect(json).not.toContain(key);
          expect(json).not.toContain(key.slice(3));
          const bounded = [" ", '"', "=", "\n"].includes(sep) && path !== "x.png";
          if (bounded) expect(r.warnings.some((w) => w.secret_kind === "dropsite_api_key")).toBe(true);
        },
      ),
    ));

  it("a key inside a reference is never shown, whatever precedes or follows it", () =>
    check(
      fc.property(fc.string({ maxLength: 6 }), plantedKey, fc.string({ maxLength: 6 }), (before, key, after) => {
        const text = `<img src="${before}${key}${after}"><link href='/${before}${key}'>`;
        const json = JSON.stringify(
          buildReport({ files: [{ path: "index.html", size: text.length, bytes: enc.encode(text) }] }),
        );
        expect(json).not.toContain(key);
        expect(json).not.toContain(key.slice(3));
      }),
    ));
});
