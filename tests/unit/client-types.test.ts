import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../client";
import { clientTypesSource } from "../../lib/openapi/client-types";

// The typed client's types are the OpenAPI document's: a route changed without regenerating
// client/schema.ts (npm run client:types), or the file edited by hand, fails here.
describe("the typed client", () => {
  it("has the types the OpenAPI document gives today", async () => {
    const committed = await readFile(path.join(import.meta.dirname, "..", "..", "client", "schema.ts"), "utf8");
    const fresh = await clientTypesSource();
    expect(committed === fresh, "client/schema.ts is stale: run `npm run client:types`").toBe(true);
  }, 60_000);

  it("sends the key as a bearer credential and answers {data} or {error} with the envelope", async () => {
    const seen: Request[] = [];
    const client = createClient({
      baseUrl: "https://dropsite.example/",
      apiKey: "sp_test",
      fetch: (req: Request) => {
        seen.push(req);
        const ok = req.url.endsWith("/limits");
        return Promise.resolve(
          new Response(JSON.stringify(ok ? { plan: "free" } : { error: "No such drop", code: "not_found" }), {
            status: ok ? 200 : 404,
            headers: { "content-type": "application/json" },
          }),
        );
      },
    });
    const limits = await client.GET("/limits");
    expect(limits.data).toEqual({ plan: "free" });
    const missing = await client.GET("/drops/{slug}", { params: { path: { slug: "a b" } } });
    expect(missing.data).toBeUndefined();
    expect(missing.error?.code).toBe("not_found");
    expect(seen.map((r) => r.url)).toEqual(["https://dropsite.example/limits", "https://dropsite.example/drops/a%20b"]);
    expect(seen.every((r) => r.headers.get("authorization") === "Bearer sp_test")).toBe(true);
  });
});
