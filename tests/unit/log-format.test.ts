import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The server's log writer (lib/log) in a process of its own, as server.mjs runs it: every line
// JSON with time, level and msg (console lines too, errors with their cause chains), or a
// readable line with LOG_FORMAT=text; lines gathered for a batched write are not lost when the
// process exits at once.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = `
import { log, routeConsole } from "./lib/log/index.ts";
routeConsole();
log("info", "hello", { request_id: "r-1", status: 200, skipped: undefined });
console.error("[storage] s3 store unreachable:", new Error("connect failed", { cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) }));
console.warn("plain %s", "warning");
process.exit(0);
`;

function run(format: string): string[] {
  const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SCRIPT], {
    cwd: ROOT,
    // Only what the child needs: the test run's own variables are not a server's configuration.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: format, NODE_ENV: "test" },
    encoding: "utf8",
  });
  expect(out.status).toBe(0);
  expect(out.stderr).toBe("");
  return out.stdout.split("\n").filter((l) => l !== "");
}

describe("log lines", () => {
  it("are JSON objects with time, level and msg; console errors carry their scope and cause chain", () => {
    const lines = run("json").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: "info",
      msg: "hello",
      request_id: "r-1",
      status: 200,
    });
    expect(lines[1]).toMatchObject({
      level: "error",
      msg: "s3 store unreachable:",
      scope: "storage",
      error: "Error: connect failed ← Error: refused (ECONNREFUSED)",
    });
    expect(lines[1]!.stack).toMatch(/^Error: connect failed\n\s+at /);
    expect(lines[2]).toMatchObject({ level: "warn", msg: "plain warning" });
  });

  it("LOG_FORMAT=text writes the same fields as one readable line each", () => {
    const lines = run("text");
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}hello request_id=r-1 status=200$/);
    expect(lines[1]).toMatch(
      / ERROR s3 store unreachable: scope=storage error="Error: connect failed ← Error: refused \(ECONNREFUSED\)"/,
    );
  });
});

describe("the request line's JSON, written out field by field (lib/plane/log.ts requestJson)", () => {
  it("quotes every single UTF-16 code unit as JSON.stringify does", async () => {
    const { jsonString } = await import("@/lib/log");
    for (let c = 0; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      expect(jsonString(s)).toBe(JSON.stringify(s));
      expect(jsonString(`/a${s}b`)).toBe(JSON.stringify(`/a${s}b`));
    }
  });

  it("gives the object's JSON, in its order, for paths, codes and ids a client can shape", async () => {
    const { requestJson } = await import("@/lib/plane/log");
    const strange = ['/a"b', "/a\\b", "/\u0001\u001f", "/é/日本/😀", "/\ud800x", "/\udfff", "/%22", "(not a path)"];
    for (const path of strange)
      for (const upstream of [undefined, 'up"stream\\', "x".repeat(200)])
        for (const aborted of [undefined, true] as const)
          for (const errorCode of [undefined, "not_found", "http_599"]) {
            const fields = {
              request_id: "2fe70b69-3dee-4a12-858d-7ac20a7677d4",
              method: "GET",
              host_kind: "drop",
              path,
              status: 404,
              duration_ms: 12.3,
              bytes: 0,
              error_code: errorCode,
              plane: "data" as const,
              upstream_request_id: upstream,
              aborted,
            };
            const json = `{${requestJson(fields)}}`;
            expect(json).toBe(JSON.stringify(fields));
            expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(fields)));
          }
  });
});
