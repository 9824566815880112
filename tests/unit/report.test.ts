import { describe, expect, it } from "vitest";
import { buildReport, REPORT_LIST_CAP, SCAN_BYTES_PER_FILE, type ReportFile } from "@/lib/deploy/report";
import { cssReferences, moduleReferences } from "@/lib/deploy/report-refs";
import { reportLines } from "@/lib/deploy/report-text";
import { LARGE_FILE_WARNING_BYTES } from "@/lib/plans";

// The deploy report as a pure function of the files (paths and bytes) and the drop's other paths.

const enc = new TextEncoder();
const file = (path: string, text = ""): ReportFile => ({
  path,
  size: enc.encode(text).byteLength,
  bytes: enc.encode(text),
});
const site = (files: Record<string, string>, existingPaths?: string[]) =>
  buildReport({ files: Object.entries(files).map(([p, t]) => file(p, t)), existingPaths });
const missing = (files: Record<string, string>, existingPaths?: string[]) =>
  site(files, existingPaths).missing_references;
const kinds = (files: Record<string, string>) =>
  site(files).warnings.map((w) => (w.secret_kind ? `${w.kind}:${w.secret_kind}` : w.kind));

/** An sp_ key shape assembled at run time, so no literal key sits in the source. */
const fakeKey = () => `sp_${"Ab1-_".repeat(8)}xyz`;

describe("missing references: HTML", () => {
  it("lists a relative src that no file answers, and not the ones present", () => {
    expect(
      missing({ "index.html": '<img src="img/missing.png"><img src="img/here.png">', "img/here.png": "x" }),
    ).toEqual([{ path: "index.html", ref: "img/missing.png" }]);
  });

  it("resolves relative to the referring file, and / from the drop root", () => {
    const files = {
      "index.html": "",
      "blog/post.html":
        '<img src="../img/a.png"><img src="b.png"><img src="/c.png"><link href="./style.css" rel=stylesheet>',
      "img/a.png": "",
      "blog/b.png": "",
      "blog/style.css": "",
    };
    expect(missing(files)).toEqual([{ path: "blog/post.html", ref: "/c.png" }]);
  });

  it("follows the serving rules: clean URLs, folders, index.html", () => {
    const files = {
      "index.html":
        '<a href="about">a</a><a href="/docs">d</a><a href="docs/">d</a><a href="/">home</a><a href=".">here</a><a href="contact">c</a><a href="blog/">b</a>',
      "about.html": "",
      "docs/index.html": "",
    };
    expect(missing(files).map((m) => m.ref)).toEqual(["contact", "blog/"]);
  });

  it("a root 200.html answers extensionless routes but not missing assets", () => {
    expect(
      missing({ "index.html": '<a href="/app/settings">s</a><img src="/logo.png">', "200.html": "" }).map((m) => m.ref),
    ).toEqual(["/logo.png"]);
  });

  it("ignores absolute URLs, protocol-relative URLs, fragments, data:, mailto:, javascript: and templates", () => {
    const html = [
      '<a href="https://example.com/x.html">',
      '<script src="//cdn.example.com/x.js"></script>',
      '<a href="#top">',
      '<img src="data:image/png;base64,iVBORw0KGgo=">',
      '<a href="mailto:a@example.com">',
      '<a href="tel:+100">',
      '<a href="javascript:void(0)">',
      '<img src="{{ logo }}">',
      '<img src="${src}">',
      '<a href="?page=2">',
      '<a href="">',
    ].join("");
    expect(missing({ "index.html": html })).toEqual([]);
  });

  it("strips query strings and fragments before checking, and shows the reference without them", () => {
    expect(
      missing({
        "index.html":
          '<link rel=stylesheet href="style.css?v=3"><a href="page.html#part">p</a><img src="gone.png?v=1#x">',
        "style.css": "",
        "page.html": "",
      }),
    ).toEqual([{ path: "index.html", ref: "gone.png" }]);
  });

  it("decodes percent-escapes and entities the way a browser asks", () => {
    expect(
      missing({
        "index.html": '<img src="my%20photo.png"><img src="a&amp;b.png"><img src="caf%C3%A9.png">',
        "my photo.png": "",
        "a&b.png": "",
        "café.png": "",
      }),
    ).toEqual([]);
  });

  it("reads srcset candidates, with descriptors and commas in URLs", () => {
    const html =
      '<img srcset="a-1x.png 1x, b-2x.png 2x,c.png 3x"><picture><source srcset="wide.webp 800w, narrow.webp 400w"></picture><img srcset="data:image/png;base64,AAA, d.png 2x">';
    expect(missing({ "index.html": html, "a-1x.png": "", "wide.webp": "" }).map((m) => m.ref)).toEqual([
      "b-2x.png",
      "c.png",
      "narrow.webp",
      "d.png",
    ]);
  });

  it("checks poster, object data, svg use and inline style url()", () => {
    const html =
      '<video poster="poster.jpg"></video><object data="doc.pdf"></object><svg><use href="sprite.svg#icon"></use><use href="#local"></use></svg><div style="background: url(\'bg.png\')"></div>';
    expect(missing({ "index.html": html, "sprite.svg": "<svg/>" }).map((m) => m.ref)).toEqual([
      "poster.jpg",
      "doc.pdf",
      "bg.png",
    ]);
  });

  it("a <base> moves the references; a base elsewhere leaves them alone", () => {
    expect(
      missing({ "index.html": '<base href="/assets/"><img src="a.png"><img src="b.png">', "assets/a.png": "" }).map(
        (m) => m.ref,
      ),
    ).toEqual(["b.png"]);
    expect(missing({ "index.html": '<base href="https://cdn.example.com/"><img src="a.png">' })).toEqual([]);
  });

  it("inline <style> and <script type=module> are checked; classic inline scripts are not", () => {
    const html =
      '<style>body{background:url(bg.png)}</style><script type="module">import { a } from "./a.js"; import "./gone.js";</script><script>import("./classic.js")</script>';
    expect(missing({ "index.html": html, "a.js": "" }).map((m) => m.ref)).toEqual(["bg.png", "./gone.js"]);
  });

  it("skips preconnect and dns-prefetch links, and reports each reference once per file", () => {
    expect(
      missing({ "index.html": '<link rel=preconnect href="/x"><img src="gone.png"><img src="gone.png">' }),
    ).toEqual([{ path: "index.html", ref: "gone.png" }]);
  });
});

describe("missing references: CSS and modules", () => {
  it("finds url() in every quoting and @import in both forms, without comments", () => {
    expect(
      cssReferences(
        `@import "a.css"; @import url('b.css'); .x{background:url(c.png)} .y{background:url( "d.png" )} /* url(e.png) */`,
      ),
    ).toEqual(["a.css", "b.css", "c.png", "d.png"]);
  });

  it("resolves a style sheet's references relative to the style sheet", () => {
    const files = {
      "index.html": "",
      "css/site.css":
        "@import 'base.css'; body{background:url(../img/bg.png)} .f{src:url(fonts/x.woff2) format('woff2')} .m{mask:url(#m)} .d{background:url(data:image/png;base64,AA)}",
      "css/base.css": "",
      "img/bg.png": "",
    };
    expect(missing(files)).toEqual([{ path: "css/site.css", ref: "fonts/x.woff2" }]);
  });

  it("finds static, re-export, side-effect and dynamic imports, relative specifiers only", () => {
    const js = `import a from "./a.js";\nimport {b as c} from '../b.js'\nimport*as d from"./d.mjs";export { e } from "./e.js";\nimport "./side.js";\nconst f = await import("./f.js");\nimport React from "react";\n// import x from "./commented.js"\n/* import y from "./block.js" */\nimport.meta.url;\nconst s = "import z from './in-string'".length;`;
    // A scanner, not a parser: an import statement inside a string counts too.
    expect(moduleReferences(js)).toEqual([
      "./a.js",
      "../b.js",
      "./d.mjs",
      "./e.js",
      "./side.js",
      "./in-string",
      "./f.js",
    ]);
  });

  it("checks .js and .mjs files against the drop, relative to the module", () => {
    const files = {
      "index.html": '<script type="module" src="js/main.js"></script>',
      "js/main.js": 'import { x } from "./lib.mjs"; import("./lazy.js"); import "/vendor/gone.js";',
      "js/lib.mjs": 'export * from "../shared/util.js";',
      "js/lazy.js": "",
    };
    expect(missing(files)).toEqual([
      { path: "js/main.js", ref: "/vendor/gone.js" },
      { path: "js/lib.mjs", ref: "../shared/util.js" },
    ]);
  });

  it("an append's references are checked against the paths the drop already holds", () => {
    const files = {
      "extra.html": '<link rel=stylesheet href="style.css"><img src="img/new.png"><img src="img/old.png">',
      "img/new.png": "",
    };
    expect(missing(files, ["index.html", "style.css"])).toEqual([{ path: "extra.html", ref: "img/old.png" }]);
    expect(missing(files, ["index.html", "style.css", "img/old.png"])).toEqual([]);
  });
});

describe("warnings", () => {
  it("a drop without a root index.html warns no_index; a 200.html or an existing index.html is enough", () => {
    expect(kinds({ "page.html": "" })).toEqual(["no_index"]);
    expect(kinds({ "sub/index.html": "" })).toEqual(["no_index"]);
    expect(kinds({ "200.html": "" })).toEqual([]);
    expect(site({ "page.html": "" }, ["index.html"]).warnings).toEqual([]);
  });

  it("files over the large-file size warn large_file, naming the file", () => {
    const big: ReportFile = { path: "video.mp4", size: LARGE_FILE_WARNING_BYTES + 1 };
    const edge: ReportFile = { path: "edge.bin", size: LARGE_FILE_WARNING_BYTES };
    expect(buildReport({ files: [file("index.html"), big, edge] }).warnings).toEqual([
      { path: "video.mp4", kind: "large_file", message: expect.stringContaining("10.0 MB") },
    ]);
  });

  it("paths that differ only by letter case warn case_clash once per group", () => {
    const w = site({ "index.html": "", "Logo.png": "", "logo.png": "", "LOGO.PNG": "", "other.png": "" }).warnings;
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ kind: "case_clash", path: "LOGO.PNG" });
    expect(w[0]!.message).toContain('"Logo.png"');
    expect(w[0]!.message).toContain('"logo.png"');
  });

  it("an append's case clash with an existing file warns; an old clash alone does not", () => {
    expect(site({ "Readme.txt": "" }, ["index.html", "README.txt"]).warnings.map((w) => w.kind)).toEqual([
      "case_clash",
    ]);
    expect(site({ "new.txt": "" }, ["index.html", "a.txt", "A.txt"]).warnings).toEqual([]);
  });

  it.each([
    ["dropsite_api_key", () => fakeKey()],
    ["aws_access_key", () => `AKIA${"IOSFODNN7EXAMPLE"}`],
    ["github_token", () => `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`],
    ["stripe_secret_key", () => `sk_live_${"4eC39HqLyjWDarjtT1zdp7dc"}`],
    ["google_api_key", () => `AIza${"SyA-1234567890abcdefghijklmnopqrstu"}`],
    ["slack_token", () => `xoxb-${"123456789012-abcdefghijkl"}`],
    ["private_key", () => `-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----`],
    ["private_key", () => `-----BEGIN PRIVATE KEY-----\nMIIEow\n-----END PRIVATE KEY-----`],
  ])("a string shaped like a %s warns secret by kind, never quoting it", (kind, make) => {
    const secret = make();
    const report = site({ "index.html": `<p>hi</p>\n<script>const k = "${secret}";</script>` });
    expect(report.warnings).toEqual([
      { path: "index.html", kind: "secret", secret_kind: kind, message: expect.stringContaining("Line 2") },
    ]);
    const text = JSON.stringify(report);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(0, 12));
    expect(text).not.toContain(secret.slice(-8));
  });

  it("counts several strings of one kind in one file as one warning", () => {
    const w = site({
      "index.html": "",
      "config.json": JSON.stringify({ a: fakeKey(), b: fakeKey().replace("xyz", "xyw") }),
    }).warnings;
    expect(w).toEqual([
      {
        path: "config.json",
        kind: "secret",
        secret_kind: "dropsite_api_key",
        message: expect.stringContaining("2 such strings"),
      },
    ]);
  });

  it("near misses are not secrets: other prefixes, wrong lengths, test keys, longer words", () => {
    const text = [
      `resp_${"A".repeat(43)}`,
      `sp_${"A".repeat(42)}`,
      `sp_${"A".repeat(44)}`,
      "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
      "AKIA123",
      "XAKIAIOSFODNN7EXAMPLE1",
      "BEGIN PUBLIC KEY",
      "-----BEGIN CERTIFICATE-----",
    ].join("\n");
    expect(site({ "index.html": text }).warnings).toEqual([]);
  });

  it(".env files warn by path, whatever they hold; templates do not", () => {
    expect(
      kinds({ "index.html": "", ".env": "A=1", "config/.env.production": "", ".env.example": "KEY=", "env.txt": "" }),
    ).toEqual(["secret:env_file", "secret:env_file"]);
  });

  it("binary files are not read for references or secrets", () => {
    expect(site({ "index.html": "", "photo.png": `<img src="x.png"> ${fakeKey()}` }).warnings).toEqual([]);
    expect(missing({ "index.html": "", "photo.png": '<img src="x.png">' })).toEqual([]);
  });

  it("text files whose bytes were not read, or only partly, are listed as not_scanned", () => {
    const unread: ReportFile = { path: "app.js", size: 100 };
    const partial: ReportFile = {
      path: "big.js",
      size: SCAN_BYTES_PER_FILE + 10,
      bytes: new Uint8Array(SCAN_BYTES_PER_FILE + 10),
    };
    const r = buildReport({ files: [file("index.html"), unread, partial, { path: "image.png", size: 10 }] });
    expect(r.warnings.map((w) => [w.path, w.kind])).toEqual([
      ["app.js", "not_scanned"],
      ["big.js", "not_scanned"],
    ]);
  });
});

describe("bounds", () => {
  it("lists at most the cap of each list and says how many were left off", () => {
    const html = Array.from({ length: REPORT_LIST_CAP + 25 }, (_, i) => `<img src="gone-${i}.png">`).join("");
    const r = site({ "index.html": html });
    expect(r.missing_references).toHaveLength(REPORT_LIST_CAP);
    expect(r.left_off).toEqual({ missing_references: 25, warnings: 0 });
  });

  it("a clean site has empty lists and no left_off", () => {
    expect(
      site({ "index.html": '<link rel=stylesheet href="s.css"><img src="a.png">', "s.css": "", "a.png": "" }),
    ).toEqual({ missing_references: [], warnings: [] });
  });

  it("a reference shaped like a secret is not shown", () => {
    const r = site({ "index.html": `<img src="/img/${fakeKey()}.png">` });
    expect(r.missing_references).toEqual([{ path: "index.html", ref: "(a reference shaped like a secret)" }]);
    expect(JSON.stringify(r)).not.toContain(fakeKey());
  });
});

describe("the report as text (CLI and MCP)", () => {
  it("nothing for an empty or absent report", () => {
    expect(reportLines(undefined, 10, "x")).toEqual([]);
    expect(reportLines({ missing_references: [], warnings: [] }, 10, "x")).toEqual([]);
  });

  it("a headline, warnings, then missing references, capped with a count of the rest", () => {
    const r = site({
      "page.html": Array.from({ length: 5 }, (_, i) => `<img src="gone-${i}.png">`).join(""),
      ".env": "",
    });
    expect(reportLines(r, 4, "see --json")).toEqual([
      "Report: 2 warnings, 5 missing references.",
      "  warning no_index: No index.html at the root: the drop's own address answers 404.",
      expect.stringMatching(/^ {2}warning secret \(env_file\) \.env: /),
      "  missing page.html → gone-0.png",
      "  missing page.html → gone-1.png",
      "  … and 3 more (see --json).",
    ]);
  });

  it("counts what the server left off", () => {
    const r = site({
      "index.html": Array.from({ length: REPORT_LIST_CAP + 7 }, (_, i) => `<img src="g${i}.png">`).join(""),
    });
    expect(reportLines(r, 0, "see --json")).toEqual([
      `Report: 0 warnings, ${REPORT_LIST_CAP + 7} missing references.`,
      `  … and ${REPORT_LIST_CAP + 7} more (see --json).`,
    ]);
  });
});
