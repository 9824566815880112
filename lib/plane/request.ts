import { IncomingMessage, ServerResponse } from "node:http";
import type { RequestSpan } from "../tracing";

// The request class of the self-hosted listener, given to createServer through its documented
// `IncomingMessage` option (listenerOptions in ./node.ts): Node's request, plus a body cap the
// dispatcher sets before anyone reads the body, and what the request log reads afterwards.

export class PlaneRequest extends IncomingMessage {
  /** Which host the dispatcher found (the request log's "host_kind"); unset when it never ran. */
  hostKind: "app" | "drop" | "domain" | undefined = undefined;
  /** The route name the dispatcher found (the metrics' `route`), for drop hosts; app-host routes are named when the answer is done. */
  routeName: string | undefined = undefined;
  /** Not counted in the request metrics (the scrape itself). */
  uncounted = false;
  /** The request's server span, when tracing is on (lib/tracing). */
  span: RequestSpan | undefined = undefined;
  /** The data plane answered (the request log's "plane": "data"), not Next. */
  answered = false;
  /** The body passed its cap: the rest of it, and its end, were dropped. */
  overCap = false;
  /** The service's id of this request (X-Request-Id, the request log's "request_id"); set by logRequest. */
  requestId = "";
  /** When the listener got the request (performance.now()), for the log's "duration_ms". */
  startedAt = 0;
  /** The X-Request-Id the client or a proxy sent, if any (logged only behind a trusted proxy). */
  upstreamId: string | string[] | undefined = undefined;
  private cap = Infinity;
  private seen = 0;
  private onOverCap: (() => void) | undefined = undefined;

  /**
   * Holds the body to `cap` bytes. The HTTP parser hands each body chunk to push(); past the
   * cap the chunk and all that follows (its end too) are dropped there, before any reader (the
   * data plane's handler or Next) sees them, so no one acts on a cut body; `onOver` runs once.
   * push() then answers false, and Node stops reading the socket.
   */
  capBody(cap: number, onOver: () => void): void {
    this.cap = cap;
    this.onOverCap = onOver;
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (this.overCap) return false;
    if (chunk !== null && this.cap !== Infinity) {
      this.seen += (chunk as Uint8Array).byteLength;
      if (this.seen > this.cap) {
        this.overCap = true;
        this.onOverCap?.();
        return false;
      }
    }
    return super.push(chunk, encoding);
  }
}

/**
 * The response class of the listener (listenerOptions' `ServerResponse`): Node's response, plus
 * a count of the body bytes written, for the request log's `bytes`.
 */
export class PlaneResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  /** Body bytes handed to write() and end(). */
  bodyBytes = 0;

  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    this.count(chunk, encoding);
    return super.write(chunk, encoding as BufferEncoding, cb as () => void);
  }

  override end(chunk?: unknown, encoding?: unknown, cb?: unknown): this {
    if (typeof chunk !== "function") this.count(chunk, encoding);
    return super.end(chunk as string, encoding as BufferEncoding, cb as () => void);
  }

  private count(chunk: unknown, encoding: unknown): void {
    if (typeof chunk === "string")
      this.bodyBytes += Buffer.byteLength(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
    else if (chunk instanceof Uint8Array) this.bodyBytes += chunk.byteLength;
  }
}
