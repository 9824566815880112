import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  BODY_ROUTES,
  bodyRoutes,
  capOf,
  LARGEST_BODY_CAP,
  matchBodyRoute,
  routeBodyCap,
  type BodyRoute,
  type CredentialRule,
} from "@/lib/http-routes";
import { handlesMethod, JSON_BODY_CAP } from "@/lib/http";
import { buildOpenApi } from "@/lib/openapi";
import { limits } from "@/lib/plans";

// The table of the routes that take bodies (lib/http-routes.ts) is the one the route files, the
// data plane and the cap check read: each row has its route file, bound to it by path; the
// credential rule is the one the OpenAPI document states; every documented body is in it, and
// every route file with a POST, PUT or PATCH handler has its row.

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
  session: [],
  review: [{ apiKey: [] }, { idToken: [] }, { reviewLink: [] }],
};

/** A row's route file: app/…/route.ts, or the authorization server's Pages API route. */
const routeFile = (row: { path: string; outside?: string }) => {
  const folders = row.path
    .slice(1)
    .split("/")
    .map((s) => s.replace(/^\{(.+)\}$/, "[$1]"));
  return row.outside === "oauth"
    ? path.join(ROOT, "pages", ...folders) + ".ts"
    : path.join(ROOT, "app", ...folders, "route.ts");
};

/** Every route file under a folder, as its path in the table's spelling ("[x]" → "{x}", "[[...x]]" → "{...x}"). */
function routeFiles(dir: string, pick: (name: string) => string | undefined): { file: string; path: string }[] {
  const out: { file: string; path: string }[] = [];
  const walk = (at: string, segments: string[]) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const segment = (name: string) => name.replace(/^\[{1,2}(.+?)\]{1,2}$/, "{$1}");
      if (entry.isDirectory()) walk(full, [...segments, segment(entry.name)]);
      else {
        const last = pick(entry.name);
        if (last !== undefined)
          out.push({ file: full, path: "/" + [...segments, ...(last ? [segment(last)] : [])].join("/") });
      }
    }
  };
  walk(path.join(ROOT, dir), []);
  return out;
}

/** Route files that answer any method and read no body, with why. */
const NO_BODY: Record<string, string> = {
  "app/[...path]/route.ts": "any path no route claims: 404 before reading",
  "pages/api/serve-drop/[[...path]].ts": "the drop hosts' serve route (proxy.ts rewrites them here)",
};

describe("the table of routes that take bodies", () => {
  it.each(BODY_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s: its route file binds it, and the document states its credential rule",
    async (_name, row: BodyRoute) => {
      const file = routeFile(row);
      expect(existsSync(file)).toBe(true);
      const source = readFileSync(file, "utf8").replace(/\s+/g, "");
      // However the formatter wraps the call, a file built on routes() binds this row's path.
      if (source.includes("routes(")) expect(source).toContain(`bodyRoutes("${row.path}"`);
      const mod = (await import(file)) as Record<string, unknown>;
      expect(handlesMethod(row.outside === "oauth" ? mod.default : mod[row.method])).toBe(true);
      if (row.outside) {
        expect(doc.paths[row.path], `${row.path} is not a route of the API`).toBeUndefined();
        return;
      }
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

  it("has a row for every route file with a POST, PUT or PATCH handler (app/ and pages/api)", async () => {
    const appFiles = routeFiles("app", (name) => (name === "route.ts" ? "" : undefined));
    const pageFiles = routeFiles("pages", (name) => (name.endsWith(".ts") ? name.slice(0, -3) : undefined));
    const listed = new Set(BODY_ROUTES.map((r) => `${r.method} ${r.path}`));
    const missing: string[] = [];
    let handlers = 0;
    for (const { file, path: p } of [...appFiles, ...pageFiles]) {
      const name = path.relative(ROOT, file);
      if (NO_BODY[name]) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      // A Pages API route answers every method with its one default export: its POST row's cap
      // holds a body sent with any other method too (matchBodyRoute's cap is the path's).
      const page = name.startsWith("pages/");
      for (const method of page ? ["POST"] : ["POST", "PUT", "PATCH"]) {
        if (!handlesMethod(page ? mod.default : mod[method])) continue;
        handlers++;
        if (!listed.has(`${method} ${p}`)) missing.push(`${method} ${p} (${name})`);
      }
    }
    expect(missing).toEqual([]);
    // The walk saw the routes (so the check above can fail): the table's own, the routes() 405s not.
    expect(appFiles.length).toBeGreaterThan(50);
    expect(handlers).toBeGreaterThanOrEqual(
      (BODY_ROUTES as readonly BodyRoute[]).filter((r) => r.outside !== "oauth").length,
    );
    for (const f of Object.keys(NO_BODY)) expect(existsSync(path.join(ROOT, f)), f).toBe(true);
    const drops = (await import(path.join(ROOT, "app/drops/route.ts"))) as Record<string, unknown>;
    expect([handlesMethod(drops.GET), handlesMethod(drops.POST)]).toEqual([true, false]);
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

  it("a catch-all takes one or more segments after its literal ones", () => {
    expect(matchBodyRoute("/api/auth/callback/email")).toMatchObject({
      rows: [{ path: "/api/auth/{...nextauth}" }],
      params: { nextauth: "callback/email" },
    });
    expect(matchBodyRoute("/api/oauth/token")?.params).toEqual({ path: "token" });
    expect(matchBodyRoute("/dashboard/connect/u1/decide")?.params).toEqual({ uid: "u1" });
    for (const p of ["/api/auth", "/api/auth/", "/api/other/x", "/dashboard/connect/u1"])
      expect(matchBodyRoute(p), p).toBeUndefined();
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
    expect(routeBodyCap("/dashboard/upload")).toBe(routeBodyCap("/deploy"));
    expect(routeBodyCap("/dashboard/preflight")).toBe(routeBodyCap("/deploy/preflight"));
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
      "/drops/a/render",
      "/domains/example.com/verify",
      "/dashboard/connect/u1/decide",
      "/api/auth/signin/email",
      "/api/oauth/register",
    ])
      expect(routeBodyCap(p), p).toBe(JSON_BODY_CAP);
    expect(routeBodyCap("/limits")).toBeUndefined();
  });
});
