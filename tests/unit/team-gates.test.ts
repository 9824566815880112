import { describe, expect, it } from "vitest";
import { buildOpenApi } from "@/lib/openapi";
import { toolDescriptors } from "@/lib/mcp/tools";
import { routeGate, TEAM_TOOL_GATES } from "@/lib/teams/gates";
import { TEAM_ACTIONS } from "@/lib/teams/roles";

// The one gate of callers acting as a team (lib/teams/gates.ts) names every account route of the
// OpenAPI document and every MCP tool, each with a class of the permission table: a route or
// tool added without one would refuse every team credential, and this says so first.

const doc = buildOpenApi({ BASE_URL: "http://localhost:3000", RATE_LIMIT_DEPLOYS_PER_MINUTE: 10 }) as {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
};
const gates = new Set<string>([...Object.keys(TEAM_ACTIONS), "own", "person"]);

/** Operations a Bearer credential may call (the document names a security requirement). */
const accountOperations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops)
    .filter(([, op]) => (op.security ?? []).some((s) => Object.keys(s).length > 0))
    .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);

describe("the team gate table", () => {
  it("has a class for every operation that takes a credential", () => {
    expect(accountOperations.length).toBeGreaterThan(20);
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "x1");
    const missing = accountOperations
      // Operators (/admin) and the scheduler (/cron, its own secret) are no one's team business.
      .filter(({ method, path }) => !/^\/(admin|cron)\//.test(path) && routeGate(method, concrete(path)) === undefined)
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });

  it("has a class of the permission table for every MCP tool", () => {
    for (const tool of toolDescriptors()) {
      expect(gates.has(TEAM_TOOL_GATES[tool.name] ?? ""), tool.name).toBe(true);
    }
  });

  it("refuses what it does not list: an unknown route has no gate", () => {
    expect(routeGate("GET", "/no-such-route")).toBeUndefined();
    expect(routeGate("HEAD", "/drops")).toBe("read");
    expect(routeGate("DELETE", "/drops/abc")).toBe("delete");
  });
});
