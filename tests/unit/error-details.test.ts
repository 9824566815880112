import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "@/lib/errors";
import { forMcp } from "@/lib/mcp/hints";
import { limits } from "@/lib/plans";

// Errors carry their facts as data: ApiError.fromZod is the one translation of a zod failure,
// and the MCP hints read details, never the wording of a message.

describe("ApiError.fromZod", () => {
  const schema = z.strictObject({ files: z.record(z.string(), z.string()), ttl: z.int().min(60).optional() });

  it("names the subject and the failing field, in the message and in details.field", () => {
    const parsed = schema.safeParse({ files: { "index.html": 1 } });
    expect(parsed.success).toBe(false);
    const e = ApiError.fromZod(parsed.error!, "The body", { docs: "deploy" });
    expect(e.code).toBe("invalid_request");
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^The body is invalid at "files\.index\.html": .+\.$/);
    expect(e.details).toEqual({ field: "files.index.html" });
    expect(e.docs).toBe("deploy");
  });

  it("takes a fixed code, or one chosen from the field, and a path prefix", () => {
    const parsed = schema.safeParse({ files: {}, ttl: 5 });
    const byField = ApiError.fromZod(parsed.error!, "The arguments", {
      code: (f) => (f === "ttl" ? "invalid_ttl" : undefined),
    });
    expect([byField.code, byField.details.field]).toEqual(["invalid_ttl", "ttl"]);
    const under = ApiError.fromZod(parsed.error!, "The preflight body", { under: ["files"], code: "invalid_name" });
    expect([
      under.code,
      under.details.field,
      under.message.startsWith('The preflight body is invalid at "files.ttl"'),
    ]).toEqual(["invalid_name", "files.ttl", true]);
  });

  it("a failure at the root has no field", () => {
    const e = ApiError.fromZod(z.string().safeParse(1).error!, "The input");
    expect(e.message).toMatch(/^The input is invalid: /);
    expect(e.details).toEqual({});
  });
});

describe("MCP hints read details, not messages", () => {
  const reworded = "Any wording at all.";

  it("a full drop is told to start another drop, whatever the message says", () => {
    const full = forMcp(
      new ApiError("payload_too_large", reworded, {
        details: { limit: "files_per_drop", allowed: limits.pro.filesPerDrop },
      }),
      "pro",
    );
    expect(full.hint).toBe("This drop is full; deploy the rest as another drop.");
    expect(full.details).toEqual({ limit: "files_per_drop", allowed: limits.pro.filesPerDrop });
    // The old wording without the fact is no longer read as a full drop.
    const words = forMcp(
      new ApiError("payload_too_large", "adding 5 would pass the limit of 1000 files per drop."),
      "pro",
    );
    expect(words.hint).not.toBe(full.hint);
  });

  it("a per-file limit names the plans with a larger file, a body limit those with a larger body", () => {
    const file = forMcp(
      new ApiError("payload_too_large", reworded, {
        details: { limit: "file_bytes", allowed: limits.anonymous.fileBytes },
      }),
      "anonymous",
    );
    const body = forMcp(
      new ApiError("payload_too_large", reworded, {
        details: { limit: "body_bytes", allowed: limits.anonymous.bodyBytes },
      }),
      "anonymous",
    );
    const liftsFile =
      Object.entries(limits).filter(([t, l]) => t !== "anonymous" && l.fileBytes > limits.anonymous.fileBytes).length >
      0;
    const liftsBody =
      Object.entries(limits).filter(([t, l]) => t !== "anonymous" && l.bodyBytes > limits.anonymous.bodyBytes).length >
      0;
    // The table makes the two differ (a paid plan takes larger files; no plan a larger call), so the fact decides.
    expect(liftsFile).not.toBe(liftsBody);
    expect(file.upgrade).toBe(liftsFile);
    expect(body.upgrade).toBe(liftsBody);
  });
});
