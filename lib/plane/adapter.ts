import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { env } from "../env";
import { ApiError } from "../errors";
import { handle, type Handler } from "../http";
import type { ServeResult } from "../serve/types";
import type { PlaneRequest } from "./request";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

// The Node-to-Fetch adapter of the data plane: Node's request and response on one side, the
// web types the route handlers (lib/http handle()) and the serve function speak on the other,
// with no framework copy of a body's bytes.

export function envelope(res: ServerResponse, status: number, code: string, error: string): void {
  const id = res.getHeader("X-Request-Id");
  send(res, status, JSON.stringify(typeof id === "string" ? { error, code, request_id: id } : { error, code }));
}

export function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(body);
}

/**
 * Closes a connection whose request body is refused: a FIN once the answer is out (so the
 * client reads it before any reset), and a hard close shortly after if the client keeps sending.
 */
export function hangUp(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.end();
  setTimeout(() => socket.destroy(), 2000).unref();
}

/**
 * Writes a drop's answer. The request's id (X-Request-Id, which the listener's logRequest made)
 * goes first among its headers, in the one object writeHead gets: with no header set on the
 * response before, Node writes that object as it is, without a copy of each header. An answer
 * held in memory ends with the other answers of this turn (endAtTurnEnd); a stream starts now.
 */
export function write(req: IncomingMessage, res: ServerResponse, r: ServeResult): void {
  const id = (req as Partial<PlaneRequest>).requestId;
  res.writeHead(r.status, id ? { "X-Request-Id": id, ...r.headers } : r.headers);
  const body = r.body;
  if (body === null || req.method === "HEAD") {
    endAtTurnEnd(res, undefined);
    if (body instanceof ReadableStream) void body.cancel().catch(() => undefined);
  } else if (body instanceof Uint8Array) {
    endAtTurnEnd(res, body);
  } else {
    const stream = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
    stream.on("error", () => res.destroy());
    res.on("close", () => stream.destroy());
    stream.pipe(res);
  }
}

/** Answers whose headers are written and whose end waits for the end of this turn (endAtTurnEnd). */
let held: ServerResponse[] = [];
let heldBodies: (Uint8Array | undefined)[] = [];

function endHeld(): void {
  const answers = held;
  const bodies = heldBodies;
  held = [];
  heldBodies = [];
  for (let i = 0; i < answers.length; i++) {
    const res = answers[i]!;
    // A response the client left is destroyed already; ending it then is a no-op in Node.
    if (!res.writableEnded) res.end(bodies[i]);
  }
}

/**
 * Ends a response once the event loop has handled every request that arrived with it, so all
 * the answers of one turn go out back to back (setImmediate runs right after the poll phase).
 * Under load the client's side then wakes once for a burst of answers instead of once for
 * each, which costs the kernel, and a VM most, far less (docs/benchmarks.md); alone, an answer
 * waits only for the end of the current turn. Its headers are written already (headersSent).
 */
function endAtTurnEnd(res: ServerResponse, body: Uint8Array | undefined): void {
  if (held.push(res) === 1) setImmediate(endHeld);
  heldBodies.push(body);
}

/**
 * A small request body (the unlock form), at most `cap` bytes: a larger declared length is
 * refused before reading (Node drops it once the answer is out, as for any unread body), and a
 * body that passes the cap is dropped as it arrives.
 */
export function readNodeBody(req: IncomingMessage, cap: number): Promise<Uint8Array | "too_large"> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) return Promise.resolve("too_large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    req.on("data", (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > cap) {
        chunks.length = 0;
        resolve("too_large");
      } else chunks.push(chunk);
    });
    req.once("end", () => resolve(seen > cap ? "too_large" : Buffer.concat(chunks)));
    req.once("close", () => resolve("too_large"));
    req.once("error", () => resolve("too_large"));
  });
}

/** Runs a route handler through handle() (errors render the one envelope) and writes its Response. */
export async function runHandler(
  req: PlaneRequest,
  res: ServerResponse,
  handler: Handler<Record<string, string>>,
  params: Record<string, string>,
): Promise<void> {
  const body = nodeBody(req);
  try {
    // Every header as sent (and as the listener set x-dropsite-socket-ip and x-request-id). Next
    // also fills in X-Forwarded-For with the socket address when absent; with TRUST_PROXY that
    // entry and no entry give the same client address (lib/ratelimit/address.ts), so it is not.
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, value);
    }
    // What Next hands a route handler: the app's origin and the request's path and query.
    const url = new URL(`${new URL(env().BASE_URL).origin}${req.url ?? "/"}`);
    const request = new Request(url, {
      method: req.method,
      headers,
      body: body.stream,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    const response = await handle(handler, request, params);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (res.headersSent || res.destroyed) return;
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
    res.setHeader("Content-Length", bytes.byteLength);
    res.writeHead(response.status);
    res.end(bytes);
  } catch (err) {
    console.error("[deploy] data plane failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) envelope(res, 500, "internal_error", "Something went wrong on our side.");
    else res.destroy();
  } finally {
    // A body the handler did not read to its end is read and dropped, as Node does for a request
    // nobody reads, so a kept-alive connection can carry the next request.
    body.discard();
  }
}

/**
 * The request body as a web stream over the Node stream, each chunk handed on as the Node
 * Buffer's own bytes. Readable.toWeb copies every chunk (to detach it from a pool), and so does
 * Next's adapter; holding a 25 MB zip as it arrives must cost 25 MB, not twice that. The Node
 * stream is paused while the web stream holds a chunk nobody read yet.
 */
function nodeBody(req: PlaneRequest): { stream: ReadableStream<Uint8Array>; discard: () => void } {
  let ended = false;
  let dropped = false;
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const fail = () =>
    controller.error(
      req.overCap
        ? new ApiError("payload_too_large", "The body is larger than this route accepts.")
        : new ApiError("invalid_request", "The connection closed before the request body ended."),
    );
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.on("data", onData);
        req.once("end", () => {
          ended = true;
          if (dropped) return;
          // A body cut at the route's cap (its end is dropped too) is never one to act on.
          if (req.overCap) fail();
          else controller.close();
        });
        req.once("close", () => {
          if (ended || dropped) return;
          dropped = true;
          fail();
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        discard();
      },
    },
    { highWaterMark: 1 },
  );
  const discard = () => {
    if (ended || dropped) return;
    dropped = true;
    req.off("data", onData);
    req.resume();
  };
  return { stream, discard };
}
