import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  BODY_ROUTES,
  bodyRoutes,
  capOf,
  LARGEST_BODY_CAP,
  matchBodyRoute,
  routeBodyCap,
  type CredentialRule,
} from "@/lib/http-routes";
import { JSON_BODY_CAP } from "@/lib/http";
import { buildOpenApi } from "@/lib/openapi";
import { limits } from "@/lib/plans";

// The table of the routes that take bodies (lib/http-routes.ts) is the one the route files, the
// data plane and the cap check read: each row has its route file, bound to it by path; the
// credential rule is the one the OpenAPI document states; every documented body is in it.

const ROOT = path.resolve(import.meta.dirname, "../..");
const MB = 1024 * 1024;

type Operation = { security?: Record<string, string[]>[]; requestBody?: unknown };
const doc = buildOpenApi({ BASE_URL: "http://localhost:3000", RATE_LIMIT_DEPLOYS_PER_MINUTE: 10 }) as {
  paths: Record<string, Record<string, Operation>>;
};

/** The OpenAPI security requirement each credential rule stands for (lib/openapi/operation.ts). */
const SECURITY: Record<CredentialRule, Record<string, string[]>[]> = {
  none: [],
  token: [{}],
  optional: [{}, { apiKey: [] }, { idToken: [] }],
  account: [{ apiKey: [] }, { idToken: [] }],
  idToken: [{ idToken: [] }],
  mcp: [{}, { apiKey: [] }, { idToken: [] }, { mcpOAuth: ["mcp"] }],
};

const routeFile = (p: string) =>
  path.join(
    ROOT,
    "app",
    ...p
      .slice(1)
      .split("/")
      .map((s) => s.replace(/^\{(.+)\}$/, "[$1]")),
    "route.ts",
  );

describe("the table of routes that take bodies", () => {
  it.each(BODY_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s: its route file binds it, and the document states its credential rule",
    async (_name, row) => {
      const file = routeFile(row.path);
      expect(existsSync(file)).toBe(true);
      // However the formatter wraps the call, the file binds this row's path.
      expect(readFileSync(file, "utf8").replace(/\s+/g, "")).toContain(`bodyRoutes("${row.path}"`);
      const mod = (await import(file)) as Record<string, unknown>;
      expect(typeof mod[row.method]).toBe("function");
      const op = doc.paths[row.path]?.[row.method.toLowerCase()];
      expect(op, `${row.method} ${row.path} is documented`).toBeDefined();
      expect(op!.security).toEqual(SECURITY[row.credential]);
    },
  );

  it("holds every operation the OpenAPI document gives a request body", () => {
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([m]) => `${m.toUpperCase()} ${p}`),
    );
    const listed = new Set(BODY_ROUTES.map((r) => `${r.method} ${r.path}`));
    expect(documented.length).toBeGreaterThan(10);
    expect(documented.filter((op) => !listed.has(op))).toEqual([]);
  });

  it("a route file without a handler for a method of its row fails as it loads", () => {
    expect(() => bodyRoutes("/claim", {})).toThrow(/POST \/claim .*no handler/);
    expect(() => bodyRoutes("/claim", { POST: () => new Response() })).not.toThrow();
  });
});

describe("reading the table", () => {
  it("capOf answers each path's largest cap, and LARGEST_BODY_CAP (next.config.ts's proxy buffer is above it) the table's largest", () => {
    for (const row of BODY_ROUTES) {
      const largest = Math.max(...BODY_ROUTES.filter((r) => r.path === row.path).map((r) => r.cap));
      expect(capOf(row.path)).toBe(largest);
    }
    expect(LARGEST_BODY_CAP).toBe(Math.max(...BODY_ROUTES.map((r) => r.cap)));
  });
});

describe("matching a request path", () => {
  it("a literal segment wins over a parameter in the same place, whatever the table's order", () => {
    expect(matchBodyRoute("/deploy/preflight")?.rows.map((r) => r.path)).toEqual(["/deploy/preflight"]);
    expect(matchBodyRoute("/deploy/my-site")).toMatchObject({
      rows: [{ path: "/deploy/{slug}", plane: true }],
      params: { slug: "my-site" },
    });
    expect(matchBodyRoute("/deploy/once/abc")).toMatchObject({
      rows: [{ path: "/deploy/once/{token}" }],
      params: { token: "abc" },
    });
    expect(matchBodyRoute("/deploy/uploads/t1/ab12")?.params).toEqual({ token: "t1", sha256: "ab12" });
    expect(matchBodyRoute("/drops/x/access")?.rows[0]?.method).toBe("PUT");
  });

  it("an empty segment, an extra segment or another path matches nothing", () => {
    for (const p of [
      "/deploy/",
      "/deploy//preflight",
      "/deploy/a/b",
      "/drops/x",
      "/claimx",
      "/",
      "",
      "deploy",
      "/mcp/",
    ])
      expect(matchBodyRoute(p), p).toBeUndefined();
  });

  it("caps: the largest of any plan (deploy, upload, preflight, MCP), 1 MB for Stripe's webhook, 64 KB for JSON routes", () => {
    const most = (pick: (l: (typeof limits)["free"]) => number) => Math.max(...Object.values(limits).map(pick));
    expect(routeBodyCap("/deploy")).toBe(100 * MB);
    expect(routeBodyCap("/deploy/abc")).toBe(most((l) => Math.max(l.zipBytes, l.bodyBytes)));
    expect(routeBodyCap("/deploy/once/abc")).toBe(100 * MB);
    expect(routeBodyCap("/deploy/uploads/t/h")).toBe(most((l) => l.fileBytes));
    expect(routeBodyCap("/deploy/preflight")).toBe(most((l) => l.bodyBytes));
    expect(routeBodyCap("/deploy/once/abc/preflight")).toBe(10 * MB);
    expect(routeBodyCap("/mcp")).toBe(10 * MB + 256 * 1024);
    expect(routeBodyCap("/billing/webhook")).toBe(MB);
    for (const p of [
      "/claim",
      "/keys",
      "/vanity",
      "/billing/checkout",
      "/billing/portal",
      "/drops/a/access",
      "/drops/a/rollback",
      "/domains",
      "/webhooks",
      "/device/token",
    ])
      expect(routeBodyCap(p), p).toBe(JSON_BODY_CAP);
    expect(routeBodyCap("/limits")).toBeUndefined();
  });
});
