import { appendFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Secrets never in logs, over a whole test run. vitest.config.ts creates one run directory
// (DROPSITE_TEST_RUN_DIR); every app process a test starts writes its log under logs/, the
// in-process app code of the handler tests too (tests/support/log-capture.ts), and tests register
// the secrets they used under secrets/. After the run, tests/support/global-setup.ts looks for
// every registered secret in every log and fails the run on a hit.

/** Shorter values are too likely to occur by chance (and no real secret is that short). */
const MIN_SECRET_LENGTH = 12;

export function runDir(): string | undefined {
  return process.env.DROPSITE_TEST_RUN_DIR || undefined;
}

/** A log file of this run for one process (undefined outside a test run). */
export function logFileFor(name: string): string | undefined {
  const dir = runDir();
  if (!dir) return undefined;
  mkdirSync(path.join(dir, "logs"), { recursive: true });
  return path.join(dir, "logs", `${name.replace(/[^a-zA-Z0-9_.-]/g, "_")}.log`);
}

/** Records a secret a test used, e.g. registerSecret("api key", apiKey). No-op outside a test run. */
export function registerSecret(kind: string, value: string | undefined | null): void {
  const dir = runDir();
  if (!dir || !value || value.length < MIN_SECRET_LENGTH) return;
  mkdirSync(path.join(dir, "secrets"), { recursive: true });
  appendFileSync(path.join(dir, "secrets", `${process.pid}.jsonl`), `${JSON.stringify({ kind, value })}\n`);
}

/** Variables whose values are secrets, by name. */
const SECRET_VAR = /SECRET|TOKEN|_KEY$|PASSWORD/;

/** Registers the secret-valued variables of an app's configuration. */
export function registerSecretVars(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) if (SECRET_VAR.test(k)) registerSecret(k, v);
}

/** Fields of app responses that carry secrets. */
const SECRET_FIELDS = ["apiKey", "claim_token", "upload_token", "device_code", "access_token"];

/** The service's secret tokens (lib/patterns.ts): sp_ keys, ct_ claim, ut_ upload and dg_ deploy-grant tokens. */
const SECRET_TOKEN = /(?<![A-Za-z0-9_-])(sp|ct|ut|dg)_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

/** Registers the secrets an app response hands out (JSON fields, session cookies). */
export function registerResponseSecrets(headers: Record<string, string | string[] | undefined>, body: string): void {
  if (!runDir()) return;
  const cookies = headers["set-cookie"];
  for (const c of Array.isArray(cookies) ? cookies : cookies ? [cookies] : []) {
    const [pair] = c.split(";");
    const value = pair?.slice(pair.indexOf("=") + 1);
    if (/session|csrf/i.test(pair ?? "")) registerSecret("session cookie", value);
  }
  // Every token of the service's own kinds, wherever it sits (a deploy grant's url, a command line, MCP results).
  for (const m of body.matchAll(SECRET_TOKEN)) registerSecret(`${m[1]}_ token`, m[0]);
  if (!/^\s*[{[]/.test(body)) return;
  try {
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        for (const [k, x] of Object.entries(v)) {
          if (SECRET_FIELDS.includes(k) && typeof x === "string") registerSecret(k, x);
          else walk(x);
        }
      }
    };
    walk(JSON.parse(body));
  } catch {
    /* not JSON */
  }
}

export interface Leak {
  kind: string;
  log: string;
  /** The first characters of the secret only. */
  preview: string;
}

/** Every registered secret found in any log of the run. */
export function findLeaks(dir: string): Leak[] {
  const read = (sub: string) => {
    try {
      return readdirSync(path.join(dir, sub)).map((f) => path.join(dir, sub, f));
    } catch {
      return [];
    }
  };
  const secrets = new Map<string, string>();
  for (const file of read("secrets")) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line) continue;
      const { kind, value } = JSON.parse(line) as { kind: string; value: string };
      secrets.set(value, kind);
    }
  }
  const leaks: Leak[] = [];
  for (const log of read("logs")) {
    const text = readFileSync(log, "utf8");
    for (const [value, kind] of secrets)
      if (text.includes(value)) leaks.push({ kind, log: path.basename(log), preview: `${value.slice(0, 6)}…` });
  }
  return leaks;
}
