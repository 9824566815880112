// The CLI's one HTTP transport: node:http(s), writing a body in chunks so upload progress is real.
// The typed client (cli/core/api.ts) calls it as its `fetch` (nodeFetch); the upload targets a
// preflight answers (a URL the server gave: the app's PUT, or straight to storage) go through
// `send` as they are. Nothing else in cli/ opens a connection (tests/unit/cli-requests.test.ts).
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { version as VERSION } from "../../package.json";
import { CliError, EXIT } from "./errors";

interface SendOptions {
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Told the bytes of the body handed to the socket so far. */
  onUpload?: (sent: number) => void;
}

const CHUNK = 64 * 1024;

/**
 * One HTTP request; resolves with the answer as it starts (its body still to read). A body is
 * written in chunks and `onUpload` is called as each is handed to the socket. If the server
 * answers before the body is sent (e.g. 413 on the declared length), that answer is returned.
 */
export function send(method: string, url: string, opts: SendOptions = {}): Promise<IncomingMessage> {
  const u = new URL(url);
  const request = u.protocol === "https:" ? httpsRequest : httpRequest;
  const body = opts.body;
  const headers: OutgoingHttpHeaders = {
    "user-agent": `dropsite-cli/${VERSION}`,
    accept: "application/json",
    ...(opts.headers ?? {}),
  };
  if (body) headers["content-length"] = String(body.byteLength);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(u, { method, headers }, (res) => {
      answered = true;
      resolve(res);
    });
    req.on("error", (err) => {
      if (!answered)
        reject(new CliError(`Cannot reach ${u.origin}: ${err.message}`, EXIT.network, { code: "network_error" }));
    });
    if (!body) {
      req.end();
      return;
    }
    let offset = 0;
    const writeNext = () => {
      while (offset < body.byteLength && !answered) {
        const end = Math.min(offset + CHUNK, body.byteLength);
        const slice = body.subarray(offset, end);
        offset = end;
        const ok = req.write(slice, (err) => {
          if (!err) opts.onUpload?.(end);
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

/** An answer's whole body as text. */
export async function readText(res: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts).toString("utf8");
}

// Statuses whose Response has no body (the constructor refuses one).
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for openapi-fetch over `send`: the Request's method, URL, headers and body go out
 * as they are; the answer's body streams (openapi-fetch's parseAs: "stream" hands it on unread).
 * `onUpload` gives this one call's upload progress: a client made for a call passes its own.
 */
export function nodeFetch(onUpload?: (sent: number) => void): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const res = await send(request.method, request.url, {
      headers: Object.fromEntries(request.headers),
      body,
      onUpload,
    });
    const status = res.statusCode ?? 0;
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const empty = request.method === "HEAD" || NULL_BODY.has(status);
    if (empty) res.resume();
    const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
    return new Response(stream, { status, statusText: res.statusMessage, headers });
  };
}
