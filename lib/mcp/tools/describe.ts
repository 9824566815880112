// tools/list's descriptors: each tool's zod schemas as compact JSON Schema, with its annotations
// and the preview's metadata.
import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { previewToolMeta } from "../preview";
import type { ToolDef } from "./define";

/**
 * zod writes a nullable field as `type: ["string", "null"]`; clients that map tool schemas onto a
 * single-type dialect (the Inspector warns about it) read `anyOf` of single types more reliably.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = singleTypes(v);
  if (Array.isArray(out.type) && out.anyOf === undefined) {
    const { type, ...rest } = out as { type: unknown[] };
    return { ...rest, anyOf: type.map((t) => ({ type: t })) };
  }
  return out;
}

/**
 * Compact schemas: zod bounds every z.int() by ±2^53 and spells a date-time as a long pattern
 * next to its format; neither tells an agent anything, so both go.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === "minimum" && v === Number.MIN_SAFE_INTEGER) || (k === "maximum" && v === Number.MAX_SAFE_INTEGER))
      continue;
    out[k] = compact(v);
  }
  if (out.format === "date-time") delete out.pattern;
  return out;
}

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  compact(singleTypes(z.toJSONSchema(schema, { target: "draft-2020-12", io }))) as Record<string, unknown>;

/** The tool descriptors of tools/list (the same in both eras). */
export function describeTools(tools: readonly ToolDef[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input, "input") as Tool["inputSchema"],
    outputSchema: jsonSchema(t.output, "output"),
    annotations: { title: t.title, ...t.annotations },
    ...(t.preview ? { _meta: previewToolMeta() } : {}),
  }));
}
