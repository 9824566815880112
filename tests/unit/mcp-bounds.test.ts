import { describe, expect, it } from "vitest";
import { toolDescriptors } from "@/lib/mcp/tools";
import { limits, TTL_CEILING_SECONDS } from "@/lib/plans";
import { LIST_LIMIT_MAX, MAX_OFFSET } from "@/lib/schemas";

// Every numeric tool argument states the bound the API enforces, read from the one table or
// schema that holds it, never a default of the schema library (2^53).

interface Numeric {
  at: string;
  minimum?: number;
  maximum?: number;
}

function numericArguments(): Numeric[] {
  const out: Numeric[] = [];
  const walk = (at: string, s: Record<string, unknown> | undefined) => {
    if (!s || typeof s !== "object") return;
    if (s.type === "integer" || s.type === "number")
      out.push({ at, minimum: s.minimum as number | undefined, maximum: s.maximum as number | undefined });
    for (const [k, v] of Object.entries((s.properties as Record<string, Record<string, unknown>>) ?? {}))
      walk(`${at}.${k}`, v);
    if (s.additionalProperties && typeof s.additionalProperties === "object")
      walk(`${at}[*]`, s.additionalProperties as Record<string, unknown>);
    for (const k of ["anyOf", "oneOf", "allOf"])
      for (const v of (s[k] as Record<string, unknown>[] | undefined) ?? []) walk(at, v);
    if (s.items) walk(`${at}[]`, s.items as Record<string, unknown>);
  };
  for (const t of toolDescriptors()) walk(t.name, t.inputSchema);
  return out;
}

const largestFile = Math.max(...Object.values(limits).map((l) => l.fileBytes));

describe("MCP numeric tool arguments state the API's bounds", () => {
  it("every one has a minimum and a maximum below 2^53", () => {
    const all = numericArguments();
    expect(all.length).toBeGreaterThan(5);
    for (const n of all) {
      expect({ at: n.at, hasMin: typeof n.minimum === "number", hasMax: typeof n.maximum === "number" }).toEqual({
        at: n.at,
        hasMin: true,
        hasMax: true,
      });
      expect(n.maximum!).toBeLessThan(2 ** 53 - 1);
    }
  });

  it("each bound is the API's: list paging, ttl, file sizes", () => {
    const byPath = new Map(numericArguments().map((n) => [n.at, n]));
    expect(byPath.get("list_drops.limit")).toEqual({ at: "list_drops.limit", minimum: 1, maximum: LIST_LIMIT_MAX });
    expect(byPath.get("list_drops.offset")).toEqual({ at: "list_drops.offset", minimum: 0, maximum: MAX_OFFSET });
    for (const tool of ["deploy_html", "deploy_files", "deploy_named", "deploy_directory"]) {
      expect(byPath.get(`${tool}.ttl`)?.maximum).toBe(TTL_CEILING_SECONDS);
    }
    for (const tool of ["deploy_files", "deploy_named", "append_files"])
      expect(byPath.get(`${tool}.files[*].size`)?.maximum).toBe(largestFile);
    expect(byPath.get("preflight_files.files[*].size")?.maximum).toBe(largestFile);
  });
});
