import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startApp, type RunningApp } from "../support/app-server";
import expectedFailures from "./mcp-conformance-expected-failures.json";
import { TOOL_NAMES } from "../support/tools";

// POST /mcp of the BUILT app against third-party MCP tooling: the official conformance suite
// (server-stateless scenario, revision 2026-07-28) and the MCP Inspector CLI in the modern era.
// Both are pinned devDependencies and run on the Node the tests run on (24).

const run = promisify(execFile);
// Both tools are pinned devDependencies (package.json): the tested versions, installed by npm ci.
const CONFORMANCE = path.resolve(import.meta.dirname, "../../node_modules/.bin/conformance");
const INSPECTOR = path.resolve(import.meta.dirname, "../../node_modules/.bin/mcp-inspector");

let app: RunningApp;
let work: string;
let mcpUrl: string;

beforeAll(async () => {
  app = await startApp();
  mcpUrl = `${app.baseUrl}/mcp`;
  work = await mkdtemp(path.join(tmpdir(), "dropsite-mcp-e2e-"));
  // Warm the app first (route module, SDK, embedded database and its migrations): the suite gives
  // the whole scenario 30 s, and a cold start on a busy machine can take a good part of that.
  const warm = await fetch(mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "list_drops",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "list_drops",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  expect(warm.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs a pinned tool's binary; the exit code is returned, not thrown. */
async function tool(
  bin: string,
  args: string[],
  timeout = 240_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(bin, args, {
      cwd: work,
      timeout,
      maxBuffer: 32 * 1024 * 1024,
      // Keep the Inspector's catalog and state out of the user's home.
      env: { ...process.env, HOME: work, MCP_CATALOG_PATH: path.join(work, "catalog.json"), NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== "number")
      throw new Error(`${path.basename(bin)} could not run: ${e.message}\n${e.stderr ?? ""}`, { cause: err });
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function findFile(dir: string, name: string): Promise<string | undefined> {
  for (const entry of await readdir(dir, { recursive: true })) {
    if (path.basename(String(entry)) === name) return path.join(dir, String(entry));
  }
  return undefined;
}

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

describe("official MCP conformance suite: server-stateless, 2026-07-28", () => {
  let checks: Check[];

  beforeAll(async () => {
    const out = path.join(work, "conformance");
    const r = await tool(CONFORMANCE, [
      "server",
      "--url",
      mcpUrl,
      "--scenario",
      "server-stateless",
      "--spec-version",
      "2026-07-28",
      "-o",
      out,
    ]);
    const file = await findFile(out, "checks.json").catch(() => undefined);
    if (!file)
      throw new Error(`the conformance suite wrote no checks.json (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    checks = JSON.parse(await readFile(file, "utf8")) as Check[];
  }, 300_000);

  it("runs the scenario's checks", () => {
    expect(checks.filter((c) => c.status === "SUCCESS").length).toBeGreaterThanOrEqual(15);
  });

  it("every failing check is on the committed expected-failure list, with a reason", () => {
    const expected = new Map(expectedFailures.map((f) => [f.id, f.reason]));
    for (const reason of expected.values()) expect(reason.length).toBeGreaterThan(20);
    const unexpected = checks
      .filter((c) => c.status === "FAILURE" && !expected.has(c.id))
      .map((c) => `${c.id}: ${c.errorMessage ?? ""}`);
    expect(unexpected).toEqual([]);
  });

  it("the expected-failure list holds no stale entries (each one still fails)", () => {
    const failing = new Set(checks.filter((c) => c.status === "FAILURE").map((c) => c.id));
    expect(expectedFailures.map((f) => f.id).filter((id) => !failing.has(id))).toEqual([]);
  });

  it.each([
    "sep-2575-request-meta-invalid-missing-meta",
    "sep-2575-request-meta-invalid-missing-protocol-version",
    "sep-2575-request-meta-invalid-missing-client-capabilities",
    "sep-2575-http-server-meta-invalid-400",
    "sep-2575-request-meta-client-info-optional",
    "sep-2575-server-implements-discover",
    "sep-2575-server-identifies-in-result-meta",
    "sep-2575-discover-capabilities-match-handlers",
    "sep-2575-server-unsupported-version-error",
    "sep-2575-http-server-unsupported-version-400",
    "sep-2575-http-server-header-mismatch-400",
    "sep-2575-http-server-method-not-found-404-initialize",
    "sep-2575-http-server-method-not-found-404-ping",
    "sep-2575-http-server-method-not-found-404",
    "sep-2575-http-server-error-jsonrpc-id",
  ])("%s passes", (id) => {
    const mine = checks.filter((c) => c.id === id);
    expect(mine.length, `check ${id} was not reported`).toBeGreaterThan(0);
    expect(mine.filter((c) => c.status !== "SUCCESS").map((c) => c.errorMessage)).toEqual([]);
  });
});

describe("MCP Inspector CLI, modern era", () => {
  const inspector = (...args: string[]) =>
    tool(INSPECTOR, ["--cli", mcpUrl, "--transport", "http", "--protocol-era", "modern", ...args]);

  it("tools/list shows the tools with their schemas", async () => {
    // --strict exits 6 on any error-severity schema portability problem.
    const r = await inspector("--method", "tools/list", "--strict");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^(Warning|Error): tool/m);
    const out = JSON.parse(r.stdout) as {
      tools: { name: string; inputSchema: { type: string }; annotations?: Record<string, boolean> }[];
    };
    expect(out.tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
    expect(out.tools.every((x) => x.inputSchema.type === "object")).toBe(true);
    expect(out.tools.find((x) => x.name === "list_drops")?.annotations?.readOnlyHint).toBe(true);
  }, 300_000);

  it("tools/call get_limits answers the anonymous limits", async () => {
    const r = await inspector("--method", "tools/call", "--tool-name", "get_limits");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      isError?: boolean;
      structuredContent: { plan: string; limits: { files_per_request: number } };
      content: { text: string }[];
    };
    expect(out.isError ?? false).toBe(false);
    expect(out.structuredContent).toMatchObject({ plan: "anonymous", limits: { files_per_request: 100 } });
    expect(out.content[0]?.text).toContain("Plan: anonymous");
  }, 300_000);
});
