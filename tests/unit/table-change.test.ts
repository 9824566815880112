import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";

// Change a value in each table — the plan table (lib/plans.ts) and the rate-limit table, whose
// deploy row comes from RATE_LIMIT_DEPLOYS_PER_MINUTE — and find the new value everywhere people
// and agents read it: the docs page, the pricing cards, the OpenAPI document and the MCP tool
// descriptors. A number typed into any of them by hand would keep the old value and fail here.

const FREE_FILES = 137; // was 100
const PAID_FILES = 877; // was 900
const KEY_MAX = 23; // was 25
const DEPLOYS_PER_MINUTE = 17; // was 10

let docsHtml: string;
let pricingHtml: string;
let openapi: string;
let mcpTools: string;
let toolNames: string[];
const saved = { rate: process.env.RATE_LIMIT_DEPLOYS_PER_MINUTE, base: process.env.BASE_URL };

beforeAll(async () => {
  vi.resetModules();
  process.env.RATE_LIMIT_DEPLOYS_PER_MINUTE = String(DEPLOYS_PER_MINUTE);
  // Vite sets BASE_URL to "/" in tests; the app's BASE_URL is a URL.
  process.env.BASE_URL = "http://localhost:3000";
  const { limits } = await import("@/lib/plans");
  for (const tier of ["anonymous", "free"] as const) limits[tier].filesPerRequest = FREE_FILES;
  for (const tier of ["pro", "team"] as const) limits[tier].filesPerRequest = PAID_FILES;
  limits.free.maxKeys = KEY_MAX;
  const { env, resetEnv } = await import("@/lib/env");
  resetEnv();
  const { default: DocsPage } = await import("@/app/docs/page");
  const { Pricing } = await import("@/app/_components/Pricing");
  const { buildOpenApi } = await import("@/lib/openapi");
  const { toolDescriptors } = await import("@/lib/mcp/tools");
  docsHtml = renderToStaticMarkup(DocsPage());
  pricingHtml = renderToStaticMarkup(Pricing());
  openapi = JSON.stringify(buildOpenApi(env()));
  mcpTools = JSON.stringify(toolDescriptors());
  toolNames = toolDescriptors().map((t) => t.name);
});

afterAll(async () => {
  for (const [name, value] of [
    ["RATE_LIMIT_DEPLOYS_PER_MINUTE", saved.rate],
    ["BASE_URL", saved.base],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  (await import("@/lib/env")).resetEnv();
  vi.resetModules();
});

describe("a changed table value shows up everywhere it is stated", () => {
  it("files per request (plan table): docs, pricing, OpenAPI, MCP tools", () => {
    for (const [where, text] of Object.entries({ docs: docsHtml, pricing: pricingHtml, openapi, mcp: mcpTools })) {
      expect(text, `${where} shows the free cap`).toContain(String(FREE_FILES));
      expect(text, `${where} shows the paid cap`).toContain(String(PAID_FILES));
    }
  });

  it("live keys per account (plan table): the docs page", () => {
    expect(docsHtml).toContain(`${KEY_MAX} live keys`);
  });

  it("deploys per minute (rate-limit table): docs and OpenAPI", () => {
    expect(docsHtml).toContain(`${DEPLOYS_PER_MINUTE} per minute`);
    expect(openapi).toContain(`${DEPLOYS_PER_MINUTE} deploys per 60 seconds`);
  });

  it("the docs page names every MCP tool the server lists", () => {
    expect(toolNames.length).toBeGreaterThan(5);
    for (const name of toolNames) expect(docsHtml).toContain(`<code>${name}</code>`);
  });

  it("no text keeps the old values", () => {
    // (10 per minute stays: it is also the claim limit.)
    for (const [where, text] of Object.entries({ docs: docsHtml, pricing: pricingHtml, openapi, mcp: mcpTools })) {
      expect(text, `${where} still says 900`).not.toMatch(/\b900\b/);
    }
    expect(docsHtml).not.toContain("25 live keys");
  });
});
