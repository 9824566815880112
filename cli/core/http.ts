// The CLI's HTTP: one request with node:http(s) and upload progress, API answers parsed into
// the server's response types or a CliError carrying the error envelope.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import { version as VERSION } from "../../package.json";
import type { errorEnvelopeSchema } from "../../lib/schemas";
import { CliError, EXIT } from "./errors";

type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

interface CallOptions {
  headers?: Record<string, string>;
  body?: Buffer;
  onUpload?: (sent: number) => void;
}

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request with node:http(s). With a body, it is written in chunks and `onUpload` is
 * called as each chunk is handed to the socket, so upload progress is real. If the server
 * answers before the body is sent (e.g. 413 on the declared length), that answer is returned.
 */
export function httpCall(method: string, url: string, opts: CallOptions = {}): Promise<HttpAnswer> {
  const u = new URL(url);
  const send = u.protocol === "https:" ? httpsRequest : httpRequest;
  const body = opts.body;
  const headers: Record<string, string> = {
    "user-agent": `dropsite-cli/${VERSION}`,
    accept: "application/json",
    ...(opts.headers ?? {}),
  };
  if (body) headers["content-length"] = String(body.byteLength);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = send(u, { method, headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", (err) => {
      if (!answered)
        reject(new CliError(`Cannot reach ${u.origin}: ${err.message}`, EXIT.network, { code: "network_error" }));
    });
    if (!body) {
      req.end();
      return;
    }
    const CHUNK = 64 * 1024;
    let offset = 0;
    const writeNext = () => {
      while (offset < body.byteLength && !answered) {
        const end = Math.min(offset + CHUNK, body.byteLength);
        const slice = body.subarray(offset, end);
        offset = end;
        const sent = end;
        const ok = req.write(slice, (err) => {
          if (!err) opts.onUpload?.(sent);
        });
        if (!ok) {
          req.once("drain", writeNext);
          return;
        }
      }
      if (!answered) req.end();
    };
    writeNext();
  });
}

/** Parses an API answer; a failure becomes a CliError carrying the error envelope. */
export function parseAnswer<T>(res: HttpAnswer): T {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new CliError(`Unexpected answer (HTTP ${res.status}): ${res.text.slice(0, 200)}`, EXIT.network, {
      status: res.status,
      code: "bad_response",
    });
  }
  if (res.status >= 400) {
    let envelope = (body && typeof body === "object" ? body : {}) as Partial<ErrorEnvelope>;
    // Storage's own errors (an upload target straight to Vercel Blob): {error: {code, message}}.
    const nested: unknown = envelope.error;
    if (nested && typeof nested === "object") {
      const { code, message } = nested as Record<string, unknown>;
      envelope = {
        error: typeof message === "string" ? message : undefined,
        code: typeof code === "string" ? `storage_${code}` : undefined,
      };
    }
    const msg = typeof envelope.error === "string" ? envelope.error : `HTTP ${res.status}`;
    const retryAfter = res.headers["retry-after"];
    throw new CliError(msg, EXIT.api, {
      status: res.status,
      ...envelope,
      ...(retryAfter ? { retry_after: Number(retryAfter) } : {}),
    });
  }
  return body as T;
}

/**
 * The answer of an upload target: the app's (JSON), Vercel Blob's (JSON) or an S3 bucket's (an
 * empty 200, or an XML <Error> with a Code and a Message). Throws on an error answer.
 */
export function checkUpload(res: HttpAnswer): void {
  if (res.status < 300) return;
  const xml = /<Code>([^<]*)<\/Code>[\s\S]*?<Message>([^<]*)<\/Message>/.exec(res.text);
  if (xml)
    throw new CliError(`Storage refused the upload: ${xml[2]}`, EXIT.api, {
      status: res.status,
      code: `storage_${xml[1]}`,
    });
  parseAnswer<unknown>(res);
}

/** One API call; the answer is the server's response type (`T`, from lib/schemas). */
export async function apiCall<T>(
  api: string,
  key: string | undefined,
  method: string,
  p: string,
  opts: CallOptions = {},
): Promise<T> {
  const headers = { ...(opts.headers ?? {}) };
  if (key) headers.authorization = `Bearer ${key}`;
  return parseAnswer<T>(await httpCall(method, `${api}${p}`, { ...opts, headers }));
}

/**
 * A GET whose 200 body is written to the file `dest` as it arrives (never held whole), with
 * `onData` told the bytes so far; any other answer is the API's error (a CliError).
 */
export function download(
  api: string,
  key: string | undefined,
  p: string,
  dest: string,
  onData: (received: number) => void,
): Promise<void> {
  const u = new URL(`${api}${p}`);
  const send = u.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { "user-agent": `dropsite-cli/${VERSION}` };
  if (key) headers.authorization = `Bearer ${key}`;
  return new Promise((resolve, reject) => {
    const req = send(u, { method: "GET", headers }, (res) => {
      if (res.statusCode !== 200) {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          try {
            parseAnswer<unknown>({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(parts).toString("utf8"),
            });
            reject(new CliError(`Unexpected answer (HTTP ${res.statusCode})`, EXIT.network, { code: "bad_response" }));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on("error", reject);
        return;
      }
      let received = 0;
      res.on("data", (c: Buffer) => onData((received += c.byteLength)));
      pipeline(res, createWriteStream(dest)).then(resolve, reject);
    });
    req.on("error", (err) =>
      reject(new CliError(`Cannot reach ${u.origin}: ${err.message}`, EXIT.network, { code: "network_error" })),
    );
    req.end();
  });
}
