// The reliability run's HTTP: one request to the app with an explicit Host, and the record of
// every answer that the checks read afterwards.
import { createHash } from "node:crypto";
import { request as httpRequest, type Agent } from "node:http";
import { registerResponseSecrets } from "../secrets";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The outcome of a request that got no HTTP answer (refused, reset, timed out). */
export const TRANSPORT_ERROR = 0;

export function call(
  agent: Agent,
  port: number,
  host: string,
  pathname: string,
  opts: RequestOptions = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        agent,
        host: "127.0.0.1",
        port,
        path: pathname,
        method: opts.method ?? "GET",
        headers: { host, ...(opts.headers ?? {}) },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          // Under `npm test`: minted keys and claim tokens join the run's secrets check.
          if (host.startsWith("localhost")) registerResponseSecrets(res.headers, body.toString("utf8"));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on("error", () => resolve({ status: TRANSPORT_ERROR, headers: {}, body: Buffer.alloc(0) }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: TRANSPORT_ERROR, headers: {}, body: Buffer.alloc(0) }));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** One answered request of the run. */
export interface RequestRecord {
  route: string;
  status: number;
  retryAfter: boolean;
  start: number;
  end: number;
  /** The request needs the database to answer (not a read of a drop, not the health check). */
  usesDb: boolean;
}

/** Sends one request as a client of its own (a fresh X-Forwarded-For) and records its answer under `route`. */
export type Send = (
  route: string,
  usesDb: boolean,
  host: string,
  pathname: string,
  opts?: RequestOptions,
) => Promise<Answer>;

export function recordingSender(agent: Agent, port: number, records: RequestRecord[]): Send {
  return async (route, usesDb, host, pathname, o = {}) => {
    const start = Date.now();
    const a = await call(agent, port, host, pathname, {
      ...o,
      headers: { "x-forwarded-for": someAddress(), ...(o.headers ?? {}) },
    });
    records.push({
      route,
      status: a.status,
      retryAfter: a.headers["retry-after"] !== undefined,
      start,
      end: Date.now(),
      usesDb,
    });
    return a;
  };
}

export const jsonOf = <T>(a: Answer): T => JSON.parse(a.body.toString("utf8")) as T;
export const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;
/** A client address per request: the app trusts one proxy hop, so every request is its own client. */
export const someAddress = () =>
  `10.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;
