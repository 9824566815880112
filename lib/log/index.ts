import { writeSync } from "node:fs";
import { format } from "node:util";
import { wallClock } from "../clock";
import { ApiError, describeCause } from "../errors";
import { env } from "../env";

// The one writer of the server's log: every line is a JSON object on stdout with `time` (ISO
// 8601 UTC, milliseconds), `level` (debug | info | warn | error) and `msg`, plus the fields of
// its kind (the request line's are in lib/plane/log.ts; docs/operating.md, "Logs", lists them).
// LOG_FORMAT=text writes the same fields as one readable line instead, for development.
// Lines are gathered and written together once the current turn of the event loop is done (or
// 64 KB have gathered), not with one write each; what is gathered is written synchronously when
// the process exits, so no line is lost at shutdown.

export type Level = "debug" | "info" | "warn" | "error";
export type Fields = Record<string, string | number | boolean | null | undefined>;

const FLUSH_BYTES = 64 * 1024;

let pending: string[] = [];
let pendingBytes = 0;
let scheduled = false;
let hooked = false;
let text: boolean | undefined;

function textFormat(): boolean {
  if (text === undefined) {
    try {
      text = env().LOG_FORMAT === "text";
    } catch {
      // A configuration that does not parse is reported (as JSON) by the start itself.
      text = false;
    }
  }
  return text;
}

/**
 * Writes everything gathered to stdout now. A stdout that closed (a log collector gone: EPIPE)
 * must not take the server down: its errors are ignored, as console.log ignores them.
 */
export function flushLog(): void {
  if (pending.length === 0) return;
  const chunk = pending.join("");
  pending = [];
  pendingBytes = 0;
  try {
    writeSync(1, chunk);
  } catch {
    // EAGAIN on a full non-blocking pipe, EPIPE on a closed one: written the usual way instead.
    process.stdout.write(chunk);
  }
}

function hook(): void {
  hooked = true;
  process.stdout.on("error", () => undefined);
  process.on("exit", flushLog);
}

function enqueue(line: string): void {
  if (!hooked) hook();
  pending.push(line);
  pendingBytes += line.length;
  if (pendingBytes >= FLUSH_BYTES) return flushLog();
  if (!scheduled) {
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      flushLog();
    });
  }
}

let lastMs = -1;
let lastIso = "";

/**
 * The time of a line: the ISO string is made once per millisecond (a busy server logs many a
 * ms; under Next, `new Date()` goes through its wrapper of Date: ../clock).
 */
function isoNow(): string {
  const now = wallClock();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** A string's JSON: most need no escape, and are quoted as they are. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

// A quote, a backslash, a control character or half of a surrogate pair: JSON.stringify decides.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The start of a JSON line, up to its fields: `{"time":…,"level":…,"msg":…`. */
function jsonHead(level: Level, msg: string): string {
  return `{"time":"${isoNow()}","level":"${level}","msg":${jsonString(msg)}`;
}

function render(level: Level, msg: string, fields: Fields): string {
  const time = isoNow();
  if (!textFormat()) {
    // The fields' own JSON after the three every line has (no merged copy of the fields).
    const rest = JSON.stringify(fields);
    const head = jsonHead(level, msg);
    return (rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`) + "\n";
  }
  let out = `${time} ${level.toUpperCase().padEnd(5)} ${msg}`;
  for (const k in fields) {
    const v = fields[k];
    if (v !== undefined) out += ` ${k}=${typeof v === "string" && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`;
  }
  return out + "\n";
}

/** Writes one log line. */
export function log(level: Level, msg: string, fields: Fields = {}): void {
  enqueue(render(level, msg, fields));
}

/**
 * Writes one line whose JSON fields the caller rendered (`"a":1,"b":"x"`): the request line,
 * written for every request, whose fields' types its writer knows. In the text format (no
 * JSON), `fields()` is rendered as log() renders it.
 */
export function logRendered(level: Level, msg: string, json: string, fields: () => Fields): void {
  enqueue(textFormat() ? render(level, msg, fields()) : `${jsonHead(level, msg)},${json}}\n`);
}

/** The fields of an error: `error` (the error and its causes, one line) and, for one that is no ApiError, `stack`. */
export function errorFields(err: unknown): Fields {
  const fields: Fields = { error: describeCause(err) };
  if (err instanceof Error && !(err instanceof ApiError) && err.stack) fields.stack = err.stack;
  return fields;
}

const LEVEL_OF = { log: "info", info: "info", debug: "debug", warn: "warn", error: "error" } as const;

/**
 * Routes the console of this process (the app's own lines, and those of Next and the libraries)
 * through log(): console.error("[storage] s3 store unreachable:", err) becomes
 * {"level":"error","msg":"s3 store unreachable:","scope":"storage","error":"Error: … ← …"}.
 */
export function routeConsole(): void {
  for (const method of Object.keys(LEVEL_OF) as (keyof typeof LEVEL_OF)[]) {
    const level = LEVEL_OF[method];
    console[method] = (...args: unknown[]) => {
      const errors = args.filter((a) => a instanceof Error);
      const rest = args.filter((a) => !(a instanceof Error));
      let msg = rest.length === 0 ? "" : format(...rest);
      const fields: Fields = {};
      const scope = /^\[([\w-]+)\]\s*/.exec(msg);
      if (scope) {
        fields.scope = scope[1];
        msg = msg.slice(scope[0].length);
      }
      if (errors.length > 0) Object.assign(fields, errorFields(errors[0]));
      log(level, msg, fields);
    };
  }
}
