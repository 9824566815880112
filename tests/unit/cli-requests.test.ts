import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../lib/openapi";

// The CLI builds no request by hand (DESIGN.md, round 5, "Also (CI)"): every API call is a typed
// call of the client (client/) on a path of the OpenAPI document, and the one module that opens
// connections, cli/core/transport.ts, is reached only as the client's `fetch` or with a URL the
// server gave (an upload target). A scan of cli/'s sources with the TypeScript parser.

const ROOT = path.resolve(import.meta.dirname, "../..");
const TRANSPORT = "cli/core/transport.ts";
const DOC_PATHS = new Set(
  Object.keys(buildOpenApi({ BASE_URL: "https://dropsite.example", RATE_LIMIT_DEPLOYS_PER_MINUTE: 10 }).paths ?? {}),
);
/** Text that starts like an API route: "/drops/…", "/deploy?…", "/limits". */
const API_PREFIX = new RegExp(
  `^/(?:${[...new Set([...DOC_PATHS].map((p) => p.split("/")[1]!))].map((s) => s.replace(/\./g, "\\.")).join("|")})(?:[/?]|$)`,
);
const NETWORK_MODULES = new Set(["node:http", "node:https", "node:net", "node:tls", "http", "https", "undici"]);
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

/** Where a source builds a request by hand: one line per finding, "file:line what". */
function findings(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) =>
    out.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const typedPaths = new Set<ts.Node>();
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // A type-only import (IncomingMessage's type) opens nothing.
      if (NETWORK_MODULES.has(node.moduleSpecifier.text) && !node.importClause?.isTypeOnly && file !== TRANSPORT)
        at(node, `imports ${node.moduleSpecifier.text} outside ${TRANSPORT}`);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : undefined;
      const [first, second] = node.arguments;
      if (name === "fetch" && file !== TRANSPORT) at(node, "calls fetch() itself");
      if (ts.isPropertyAccessExpression(callee) && name !== undefined && METHODS.has(name)) {
        // A typed call: its path is a literal path of the OpenAPI document.
        if (first && ts.isStringLiteral(first) && DOC_PATHS.has(first.text)) typedPaths.add(first);
        else at(node, `${name}() on a path that is not one of the document's`);
      }
      // The raw transport takes only a URL the server gave (an upload target's), never one built here.
      if (name === "send" && file !== TRANSPORT && !(second && ts.isPropertyAccessExpression(second)))
        at(node, "send() to a URL built here");
      // nodeFetch is the typed client's fetch: only a `fetch` option's value.
      if (
        name === "nodeFetch" &&
        file !== TRANSPORT &&
        !(ts.isPropertyAssignment(node.parent) && node.parent.name.getText(sf) === "fetch")
      )
        at(node, "nodeFetch() used other than as a client's fetch");
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Request")
      at(node, "new Request()");
    const texts = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? [node.text] : [];
    if (ts.isTemplateExpression(node)) texts.push(node.head.text);
    if (!typedPaths.has(node) && texts.some((t) => API_PREFIX.test(t)))
      at(node, `an API path by hand: ${node.getText(sf)}`);
    // A template whose text goes on with an API path after a value (`${api}/drops/…`).
    if (ts.isTemplateExpression(node) && node.templateSpans.some((s) => API_PREFIX.test(s.literal.text)))
      at(node, "a URL built from a value and an API path");
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...new Set(out)];
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.parentPath.includes(`${path.sep}dist`))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
}

describe("the CLI builds no request by hand", () => {
  it("every API call of cli/ is a typed call on a path of the OpenAPI document", async () => {
    const files = await sources("cli");
    expect(files).toContain(TRANSPORT);
    const found: string[] = [];
    let typed = 0;
    for (const file of files) {
      const source = await readFile(path.join(ROOT, file), "utf8");
      found.push(...findings(file, source));
      typed += [...source.matchAll(/\.(GET|POST|PUT|PATCH|DELETE)\("\//g)].length;
    }
    expect(found).toEqual([]);
    // The commands do call the API (a scan that saw nothing would pass too).
    expect(typed).toBeGreaterThan(20);
  });

  it("the scan finds each way of building a request by hand", () => {
    const by = (file: string, source: string) => findings(file, source).map((f) => f.replace(/^\S+ /, ""));
    // The CLI before the typed client: node:http in its own module, paths and URLs built by hand.
    expect(by("cli/core/http.ts", `import { request } from "node:http";`)).toEqual([
      "imports node:http outside cli/core/transport.ts",
    ]);
    expect(by("cli/x.ts", "apiCall(api, key, 'GET', `/drops/${slug}/versions?${q}`);")).toEqual([
      "an API path by hand: `/drops/${slug}/versions?${q}`",
    ]);
    expect(by("cli/x.ts", `apiCall(api, key, "GET", "/drops?limit=1");`)).toEqual([
      `an API path by hand: "/drops?limit=1"`,
    ]);
    expect(by("cli/x.ts", "httpCall('DELETE', `${api}/drops/${s}`);")).toEqual([
      "a URL built from a value and an API path",
    ]);
    expect(by("cli/x.ts", `get(api + "/limits");`)).toEqual([`an API path by hand: "/limits"`]);
    expect(by("cli/x.ts", `await fetch(url);`)).toEqual(["calls fetch() itself"]);
    expect(by("cli/x.ts", "send('GET', `${api}/x`);")).toEqual(["send() to a URL built here"]);
    expect(by("cli/x.ts", `nodeFetch()(new Request(url));`)).toEqual([
      "nodeFetch() used other than as a client's fetch",
      "new Request()",
    ]);
    expect(by("cli/x.ts", `client.GET("/drops/{slug}/nope");`)).toEqual([
      `GET() on a path that is not one of the document's`,
      `an API path by hand: "/drops/{slug}/nope"`,
    ]);
    // What the CLI does instead passes.
    expect(by("cli/x.ts", `client.GET("/drops/{slug}/versions", { params: { path: { slug } } });`)).toEqual([]);
    expect(by("cli/x.ts", `send(u.method, u.url, { body });`)).toEqual([]);
    expect(by("cli/x.ts", `client.POST("/deploy", { body, fetch: nodeFetch(onUpload) });`)).toEqual([]);
  });
});
