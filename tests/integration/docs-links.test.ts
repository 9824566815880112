import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { makeTestContext, type TestContext } from "../support/context";
import { errorCodes, errorStatus } from "@/lib/errors";
import { limits } from "@/lib/plans";
import DocsPage from "@/app/docs/page";

// Every docs_url the API can emit (`docs: "<anchor>"` anywhere in lib/ or app/) lands on an
// element of the docs page, and the page explains every error code and renders the plan table.

const ROOT = path.resolve(import.meta.dirname, "../..");

let t: TestContext;
let html: string;
let ids: Set<string>;

beforeAll(async () => {
  t = await makeTestContext();
  html = renderToStaticMarkup(createElement(DocsPage));
  ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
});
afterAll(async () => {
  await t?.close();
});

/** Every `docs: "<anchor>"` value in the sources, with where it was found. */
async function anchorsInSources(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const dir of ["lib", "app"]) {
    const files = (await readdir(path.join(ROOT, dir), { recursive: true })).map(String).filter((f) => /\.(ts|tsx)$/.test(f));
    for (const f of files) {
      const text = await readFile(path.join(ROOT, dir, f), "utf8");
      for (const m of text.matchAll(/\bdocs:\s*["'`]([a-z0-9][a-z0-9-]*)["'`]/g)) found.set(m[1]!, `${dir}/${f}`);
    }
  }
  return found;
}

describe("docs anchors", () => {
  it("finds the anchors the error envelopes use", async () => {
    const anchors = await anchorsInSources();
    // The scan itself must work: these are known to be emitted today.
    for (const a of ["authentication", "paths", "zip", "deploy", "ttl", "named-drops", "limits", "list-drops", "claiming", "keys", "append", "plans"]) {
      expect([...anchors.keys()]).toContain(a);
    }
  });

  it("every docs: anchor in lib/ and app/ exists as an id on the docs page", async () => {
    const anchors = await anchorsInSources();
    const missing = [...anchors].filter(([a]) => !ids.has(a)).map(([a, where]) => `#${a} (${where})`);
    expect(missing).toEqual([]);
  });

  it("ids are unique and the contents links point at existing ids", () => {
    const all = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(all.length).toBe(new Set(all).size);
    const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    for (const l of links) expect(ids, `#${l}`).toContain(l);
  });
});

describe("docs content", () => {
  it("every error code appears with its status and advice", () => {
    for (const code of errorCodes) {
      expect(ids, code).toContain(`error-${code}`);
      const row = new RegExp(`<tr id="error-${code}"><td><code>${code}</code></td><td>${errorStatus[code]}</td><td>[^<]{20,}</td></tr>`);
      expect(html).toMatch(row);
    }
  });

  it("renders the limits table from lib/plans.ts", () => {
    expect(html).toContain(`<th>anonymous</th><th>free</th><th>pro</th><th>team</th>`);
    const filesRow = `<th scope="row">Files per request</th><td>${limits.anonymous.filesPerRequest}</td><td>${limits.free.filesPerRequest}</td><td>${limits.pro.filesPerRequest}</td><td>${limits.team.filesPerRequest}</td>`;
    expect(html).toContain(filesRow);
    expect(html).toContain(`$${limits.pro.priceUsd}/month`);
  });

  it("quick start shows curl for HTML, JSON and zip, and an MCP config using BASE_URL", () => {
    const base = t.ctx.env.BASE_URL;
    expect(html).toContain(`-H &#x27;content-type: text/html&#x27; ${base}/deploy`);
    expect(html).toContain(`-H &#x27;content-type: application/json&#x27; ${base}/deploy`);
    expect(html).toContain(`-H &#x27;content-type: application/zip&#x27; ${base}/deploy`);
    expect(html).toContain(`&quot;url&quot;: &quot;${base}/mcp&quot;`);
  });
});
