import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { rewriteShebang } from "@/lib/ratelimit/redis";

// A local stand-in of the Upstash Redis REST protocol in front of a real redis-server:
//   POST /            body ["CMD", "arg", …]          → {result} | {error} (400)
//   POST /pipeline    body [["CMD", …], …]            → [{result} | {error}, …]
//   POST /multi-exec  body [["CMD", …], …]  (atomic)  → [{result} | {error}, …]
// with `Authorization: Bearer <token>` and, when `Upstash-Encoding: base64` is sent, every string
// in results base64-encoded except the status reply OK — what @upstash/redis decodes.
//
// @upstash/ratelimit 2.x scripts begin `#!lua flags=allow-key-locking`, a flag only Upstash knows;
// a real Redis 7 rejects it. The stand-in drops that flag from EVAL / SCRIPT LOAD and maps the
// client's SHA1 of the original script to the SHA1 Redis knows, so EVALSHA works as on Upstash.

export interface UpstashStandin {
  url: string;
  token: string;
  redisPort: number;
  /** Commands received, upper-cased name first, in order (after the shebang rewrite). */
  commands: string[][];
  /** Sends one command straight to Redis (tests: inspect or flush state). */
  redis(...args: string[]): Promise<RespValue>;
  close(): Promise<void>;
}

export type RespValue = string | number | null | Buffer | RespError | RespStatus | RespValue[];
export class RespError {
  constructor(readonly message: string) {}
}
export class RespStatus {
  constructor(readonly value: string) {}
}

export function findRedisServer(): string {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/bin", "/usr/sbin", "/usr/local/bin"];
  for (const dir of dirs) {
    if (!dir) continue;
    const file = path.join(dir, "redis-server");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  throw new Error(
    "redis-server not found on PATH. Install it with `apt-get install -y redis-server` (or run `bash scripts/system-deps.sh` as root).",
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// --- a minimal RESP2 connection ------------------------------------------------------------

export class RespConnection {
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending: Array<{ resolve: (v: RespValue) => void; reject: (e: Error) => void }> = [];
  private closed: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      for (;;) {
        const parsed = parseResp(this.buf, 0);
        if (!parsed) break;
        this.buf = this.buf.subarray(parsed.next);
        this.pending.shift()?.resolve(parsed.value);
      }
    });
    const fail = (err: Error) => {
      this.closed = err;
      for (const p of this.pending.splice(0)) p.reject(err);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("redis connection closed")));
  }

  static open(port: number): Promise<RespConnection> {
    return new Promise((resolve, reject) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.removeListener("error", reject);
        resolve(new RespConnection(s));
      });
      s.once("error", reject);
    });
  }

  /** Writes the commands in one write, so nothing interleaves (MULTI … EXEC stays contiguous). */
  send(commands: Buffer[][]): Promise<RespValue>[] {
    const closed = this.closed;
    if (closed) return commands.map(() => Promise.reject(closed));
    const parts: Buffer[] = [];
    for (const args of commands) {
      parts.push(Buffer.from(`*${args.length}\r\n`));
      for (const a of args) parts.push(Buffer.from(`$${a.length}\r\n`), a, Buffer.from("\r\n"));
    }
    const promises = commands.map(
      () => new Promise<RespValue>((resolve, reject) => this.pending.push({ resolve, reject })),
    );
    this.socket.write(Buffer.concat(parts));
    return promises;
  }

  close(): void {
    this.socket.destroy();
  }
}

function parseResp(buf: Buffer, at: number): { value: RespValue; next: number } | undefined {
  const eol = buf.indexOf("\r\n", at);
  if (eol < 0) return undefined;
  const type = String.fromCharCode(buf[at] ?? 0);
  const line = buf.toString("utf8", at + 1, eol);
  const after = eol + 2;
  switch (type) {
    case "+":
      return { value: new RespStatus(line), next: after };
    case "-":
      return { value: new RespError(line), next: after };
    case ":":
      return { value: Number(line), next: after };
    case "$": {
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      if (buf.length < after + n + 2) return undefined;
      return { value: Buffer.from(buf.subarray(after, after + n)), next: after + n + 2 };
    }
    case "*": {
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let next = after;
      for (let i = 0; i < n; i++) {
        const item = parseResp(buf, next);
        if (!item) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`);
  }
}

// --- the REST stand-in -----------------------------------------------------------------------

const sha1 = (s: Buffer | string) => createHash("sha1").update(s).digest("hex");

/** A real redis-server on loopback (no persistence), started on a free port or a given one. */
export interface RedisServer {
  port: number;
  url: string;
  /** One connection to it (the stand-in's, or tests inspecting state). */
  conn: RespConnection;
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its directory. */
  stop(): Promise<void>;
}

export async function startRedisServer(opts: { port?: number } = {}): Promise<RedisServer> {
  const bin = findRedisServer();
  const dir = await mkdtemp(path.join(tmpdir(), "dropsite-redis-"));
  let child: ChildProcess | undefined;
  let port = 0;
  let conn: RespConnection | undefined;
  let log = "";
  for (let attempt = 0; !conn; attempt++) {
    port = opts.port ?? (await freePort());
    child = spawn(
      bin,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        "--daemonize",
        "no",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
    conn = await waitForRedis(port, child);
    if (!conn) {
      child.kill("SIGKILL");
      if (attempt >= 2) {
        await rm(dir, { recursive: true, force: true });
        throw new Error(`redis-server did not start:\n${log.slice(-2000)}`);
      }
    }
  }
  const redisProcess = child as ChildProcess;
  const killOnExit = () => redisProcess.kill("SIGKILL");
  process.once("exit", killOnExit);
  const connection = conn;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    conn: connection,
    async stop() {
      process.removeListener("exit", killOnExit);
      connection.close();
      if (redisProcess.exitCode === null && redisProcess.signalCode === null) {
        const exited = new Promise<void>((resolve) => redisProcess.once("exit", () => resolve()));
        process.kill(redisProcess.pid as number, "SIGTERM");
        const timer = setTimeout(() => redisProcess.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startUpstashStandin(opts: { token?: string } = {}): Promise<UpstashStandin> {
  const token = opts.token ?? `standin_${randomBytes(16).toString("hex")}`;
  const server0 = await startRedisServer();
  const redisPort = server0.port;
  const redis = server0.conn;

  const shaMap = new Map<string, string>(); // client's SHA1 of the original script → Redis's SHA1
  const commands: string[][] = [];

  const prepare = (raw: unknown[]): Buffer[] => {
    const args = raw.map((a) => Buffer.from(typeof a === "string" ? a : JSON.stringify(a)));
    const name = (args[0]?.toString() ?? "").toUpperCase();
    const sub = (args[1]?.toString() ?? "").toUpperCase();
    const scriptAt = name === "EVAL" || name === "EVAL_RO" ? 1 : name === "SCRIPT" && sub === "LOAD" ? 2 : -1;
    const script = scriptAt >= 0 ? args[scriptAt] : undefined;
    if (script) {
      const original = script.toString("utf8");
      const rewritten = rewriteShebang(original);
      if (rewritten !== original) {
        shaMap.set(sha1(original), sha1(rewritten));
        args[scriptAt] = Buffer.from(rewritten);
      }
    }
    if (name === "EVALSHA" || name === "EVALSHA_RO") {
      const mapped = shaMap.get(args[1]?.toString().toLowerCase() ?? "");
      if (mapped) args[1] = Buffer.from(mapped);
    }
    if (name === "SCRIPT" && sub === "EXISTS") {
      for (let i = 2; i < args.length; i++) {
        const mapped = shaMap.get(args[i]?.toString().toLowerCase() ?? "");
        if (mapped) args[i] = Buffer.from(mapped);
      }
    }
    commands.push(args.map((a, i) => (i === 0 ? a.toString().toUpperCase() : a.toString())));
    return args;
  };

  const toJson = (v: RespValue, base64: boolean): unknown => {
    if (v === null || typeof v === "number") return v;
    if (v instanceof RespStatus) return base64 && v.value !== "OK" ? Buffer.from(v.value).toString("base64") : v.value;
    if (Buffer.isBuffer(v)) return base64 ? v.toString("base64") : v.toString("utf8");
    if (Array.isArray(v)) return v.map((x) => toJson(x, base64));
    return null;
  };
  const item = (v: RespValue, base64: boolean) =>
    v instanceof RespError ? { error: v.message } : { result: toJson(v, base64) };

  const server = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: `ERR stand-in: ${String(err)}` }));
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return send(res, 405, { error: "ERR only POST is supported by the stand-in" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: "Unauthorized" });
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: "ERR failed to parse command" });
    }
    const path = new URL(req.url ?? "/", "http://standin").pathname.replace(/\/+$/, "");
    const isCommand = (c: unknown): c is unknown[] => Array.isArray(c) && c.length > 0;

    if (path === "") {
      if (!isCommand(body)) return send(res, 400, { error: "ERR command must be a non-empty array" });
      const [raw] = await Promise.all(redis.send([prepare(body)]));
      const value = answerAs(body, raw as RespValue);
      return send(res, value instanceof RespError ? 400 : 200, item(value, base64));
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body) || !body.every(isCommand))
        return send(res, 400, { error: "ERR body must be an array of commands" });
      const cmds = body.map(prepare);
      if (path === "/pipeline") {
        const values = await Promise.all(redis.send(cmds));
        return send(
          res,
          200,
          values.map((v, i) => item(answerAs(body[i] as unknown[], v), base64)),
        );
      }
      const replies = await Promise.all(redis.send([[Buffer.from("MULTI")], ...cmds, [Buffer.from("EXEC")]]));
      const exec = replies[replies.length - 1] ?? null;
      if (exec instanceof RespError || !Array.isArray(exec)) {
        const queued = replies.slice(1, -1).find((r): r is RespError => r instanceof RespError);
        return send(res, 400, { error: (queued ?? (exec as RespError | null))?.message ?? "ERR transaction aborted" });
      }
      return send(
        res,
        200,
        exec.map((v, i) => item(answerAs(body[i] as unknown[], v), base64)),
      );
    }
    send(res, 404, { error: `ERR unknown endpoint ${path}` });
  };
  // SCRIPT LOAD answers the SHA1 the client computed from its own script, not Redis's.
  const answerAs = (cmd: unknown[], value: RespValue): RespValue => {
    const [name, sub, script] = cmd.map((c) => String(c));
    if (
      name?.toUpperCase() === "SCRIPT" &&
      sub?.toUpperCase() === "LOAD" &&
      Buffer.isBuffer(value) &&
      script !== undefined
    )
      return Buffer.from(sha1(script));
    return value;
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    redisPort,
    commands,
    redis: async (...args: string[]) => {
      const [v] = redis.send([args.map((a) => Buffer.from(a))]);
      return (await v) as RespValue;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await server0.stop();
    },
  };
}

async function waitForRedis(port: number, child: ChildProcess): Promise<RespConnection | undefined> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) return undefined;
    try {
      const c = await RespConnection.open(port);
      const [pong] = c.send([[Buffer.from("PING")]]);
      const v = await (pong as Promise<RespValue>);
      if (v instanceof RespStatus && v.value === "PONG") return c;
      c.close();
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}
