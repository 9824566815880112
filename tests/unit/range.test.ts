import { describe, expect, it } from "vitest";
import { parseRange } from "@/lib/serve/range";
import { candidatePaths, isHashedName, dropPath } from "@/lib/serve/paths";
import { normalizePath } from "@/lib/deploy/paths";
import { stripSingleRoot } from "@/lib/deploy/zip";

describe("parseRange", () => {
  it.each([
    [null, 100, "ignore"],
    ["bytes=0-9", 100, { start: 0, end: 9 }],
    ["bytes=90-", 100, { start: 90, end: 99 }],
    ["bytes=-10", 100, { start: 90, end: 99 }],
    ["bytes=-500", 100, { start: 0, end: 99 }],
    ["bytes=50-500", 100, { start: 50, end: 99 }],
    ["bytes=100-", 100, "unsatisfiable"],
    ["bytes=-0", 100, "unsatisfiable"],
    ["bytes=9-3", 100, "ignore"],
    ["bytes=0-1,5-6", 100, "ignore"],
    ["items=0-1", 100, "ignore"],
    ["bytes=0-0", 0, "unsatisfiable"],
  ] as const)("%s of %i bytes", (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe("request paths", () => {
  it.each([
    ["/", ""],
    ["/about", "about"],
    ["/docs/", "docs/"],
    ["/a%20b.html", "a b.html"],
    ["/cafe%CC%81.html", "caf\u00e9.html"],
    ["/cafe%CC%81.html", "caf\u00e9.html"],
    ["//a///b", "a/b"],
    ["/a/./b", "a/b"],
    ["/a/../b", null],
    ["/%2e%2e/x", null],
    ["/a%2fb", null],
    ["/%E0%A4%A", null],
  ])("%s → %s", (pathname, expected) => {
    expect(dropPath(pathname)).toBe(expected);
  });
  it("folders get index.html; clean URLs try .html (a folder index redirects to the slash)", () => {
    expect(candidatePaths("")).toEqual(["index.html"]);
    expect(candidatePaths("docs/")).toEqual(["docs/index.html"]);
    expect(candidatePaths("about")).toEqual(["about", "about.html"]);
  });
  it.each([
    ["app.3f9a1c2b.js", true],
    ["index-BXn3k9Qa.css", true],
    ["chunk.8f2e4d.woff2", true],
    ["assets/main.a1b2c3d4e5.mjs", true],
    ["index.html", false],
    ["my-component.js", false],
    ["jquery-3.7.1.min.js", false],
    ["style.min.css", false],
    ["logo-dark.svg", false],
    ["app.deadbeef.js", false],
  ])("isHashedName(%s) is %s", (name, hashed) => {
    expect(isHashedName(name)).toBe(hashed);
  });
});

describe("normalizePath", () => {
  it.each([
    ["index.html", "index.html"],
    ["./a/b.css", "a/b.css"],
    ["a/./b.css", "a/b.css"],
    ["ünïcode/файл.txt", "ünïcode/файл.txt"],
    ["cafe\u0301.html", "caf\u00e9.html"],
  ])("accepts %s as %s", (raw, expected) => {
    expect(normalizePath(raw)).toBe(expected);
  });
  it.each([
    "",
    "/abs",
    "C:/x",
    "a/../b",
    "..",
    "a\\b",
    "a//b",
    "a/",
    "a\u0000b",
    "a\nb",
    "__proto__",
    "x/constructor/y",
    ".",
    "a".repeat(1025),
  ])("refuses %j", (raw) => {
    expect(() => normalizePath(raw)).toThrowError(expect.objectContaining({ code: "invalid_request" }));
  });
});

describe("stripSingleRoot", () => {
  const f = (path: string) => ({ path, bytes: new Uint8Array() });
  it("strips one shared top folder", () => {
    expect(stripSingleRoot([f("site/index.html"), f("site/a/b.css")]).map((x) => x.path)).toEqual([
      "index.html",
      "a/b.css",
    ]);
  });
  it("keeps paths when a file sits at the top", () => {
    expect(stripSingleRoot([f("index.html"), f("site/a.css")]).map((x) => x.path)).toEqual([
      "index.html",
      "site/a.css",
    ]);
  });
  it("keeps paths when there are two top folders", () => {
    expect(stripSingleRoot([f("a/index.html"), f("b/a.css")]).map((x) => x.path)).toEqual(["a/index.html", "b/a.css"]);
  });
});

describe("GET /drops paging", () => {
  it("defaults to limit 100, offset 0, and keeps given bounds", async () => {
    const { parseListQuery } = await import("@/lib/drops/manage");
    expect(parseListQuery(new URLSearchParams())).toEqual({ limit: 100, offset: 0 });
    expect(parseListQuery(new URLSearchParams("limit=500&offset=7"))).toEqual({ limit: 500, offset: 7 });
    expect(parseListQuery(new URLSearchParams("limit=1"))).toEqual({ limit: 1, offset: 0 });
  });
});
