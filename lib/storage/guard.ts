import { ApiError, describeCause, upstreamUnavailable } from "../errors";
import type { ByteRange, DirectUploads, Storage } from "./types";
import { metrics } from "../metrics/registry";
import { inSpan } from "../tracing";

// A store known to be down fails fast. A network store (S3, Vercel Blob) that stops answering
// would otherwise hold every request that needs it for the client's connect and retry timeouts,
// and the requests queue behind one another for its sockets. So the first call that cannot
// reach the store (connection refused or reset, a connect or idle timeout) marks it down: for
// `downMs` every call fails at once with the 503 of an unavailable dependency (the one error
// model, lib/errors.ts: upstream_unavailable with Retry-After), and nothing is sent to the store,
// so nothing is written. After that the next call sends one cheap probe (a listing of
// `healthz/`, as GET /healthz does) and waits for it: an answer clears the mark, a failure
// renews it; calls meanwhile are refused as before. Failures
// that are answers (a missing bucket, a refused signature, a body that failed its own check)
// pass through as they are and mark nothing.

export interface GuardOptions {
  /** How long a store stays marked down before the next probe (ms). */
  downMs?: number;
  /** The longest a probe may take before it counts as failed (ms). */
  probeTimeoutMs?: number;
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
  /** Called when the store is marked down or answers again (the log). */
  onChange?: (down: boolean, cause: unknown) => void;
}

/** Transport errors that say the store cannot be reached (Node's net codes and undici's). */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Whether an error means the store could not be reached (as opposed to an answer it gave): a
 * transport code anywhere in the cause chain, or the AWS SDK's TimeoutError (a connect timeout,
 * or a socket idle past its timeout).
 */
export function isUnreachable(err: unknown): boolean {
  for (
    let e: unknown = err, i = 0;
    e !== null && typeof e === "object" && i < 6;
    e = (e as { cause?: unknown }).cause, i++
  ) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
    if (name === "TimeoutError") return true;
    // AggregateError (a connect to each address of a host): any member that is a transport failure.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((x) => isUnreachable(x))) return true;
  }
  return false;
}

/** The 503 of a store known to be down. */
export function storageUnavailable(cause: unknown): ApiError {
  return upstreamUnavailable("file storage", cause);
}

export class GuardedStorage implements Storage {
  readonly kind: string;
  readonly direct?: DirectUploads;
  private readonly downMs: number;
  private readonly probeTimeoutMs: number;
  private readonly now: () => number;
  private readonly onChange: (down: boolean, cause: unknown) => void;
  /** Down until this time (ms since the epoch); 0 when the store is not known down. */
  private downUntil = 0;
  private cause: unknown;
  /** Counts the times the store was marked down: only a call begun after the last mark clears it. */
  private marks = 0;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly inner: Storage,
    opts: GuardOptions = {},
  ) {
    this.kind = inner.kind;
    this.downMs = opts.downMs ?? 2_000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 2_000;
    this.now = opts.now ?? Date.now;
    this.onChange = opts.onChange ?? logChange(inner.kind);
    const direct = inner.direct;
    if (direct) {
      this.direct = {
        target: (key, size, validUntil, sha256) =>
          this.run("target", () => direct.target(key, size, validUntil, sha256)),
        stat: (key) => this.run("stat", () => direct.stat(key)),
      };
    }
  }

  /** Whether the store is marked down now (tests, health). */
  get down(): boolean {
    return this.downUntil !== 0;
  }

  put(key: string, bytes: Uint8Array, contentType: string, sha256?: string): Promise<string> {
    return this.run("put", () => this.inner.put(key, bytes, contentType, sha256));
  }

  get(ref: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    return this.run("get", () => this.inner.get(ref, range));
  }

  putStream(key: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<string> {
    // A failure of the body itself (a client that went away, a size or hash check) is the
    // caller's, not the store's: it is told apart so that it never marks the store down.
    let bodyFailed = false;
    const reader = body.getReader();
    const tracked = new ReadableStream<Uint8Array>({
      async pull(c) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (err) {
          bodyFailed = true;
          throw err;
        }
        if (next.done) c.close();
        else c.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const put = this.run(
      "putStream",
      () => this.inner.putStream(key, tracked, contentType),
      () => bodyFailed,
    );
    // Refused before the store saw it: the caller's stream is released as a failed put would.
    return put.catch((err: unknown) => {
      if (err instanceof ApiError && err.code === "upstream_unavailable")
        void reader.cancel(err).catch(() => undefined);
      throw err;
    });
  }

  size(ref: string): Promise<number | null> {
    return this.run("size", () => this.inner.size(ref));
  }

  delete(ref: string): Promise<void> {
    return this.run("delete", () => this.inner.delete(ref));
  }

  deletePrefix(prefix: string): Promise<void> {
    return this.run("deletePrefix", () => this.inner.deletePrefix(prefix));
  }

  list(prefix: string): Promise<string[]> {
    return this.run("list", () => this.inner.list(prefix));
  }

  /**
   * Runs one call unless the store is known down; a failure to reach it marks it down. Each call
   * the store sees is timed (storage_operation_duration_seconds{store,op}); each that fails
   * other than by the caller's body is counted (storage_errors_total), and so is each refused
   * while the store is known down.
   */
  private async run<T>(op: string, call: () => Promise<T>, notTheStore: () => boolean = () => false): Promise<T> {
    const m = metrics();
    try {
      await this.ready();
    } catch (err) {
      m.storageErrors.inc({ store: this.kind, op });
      throw err;
    }
    const mark = this.marks;
    const started = performance.now();
    try {
      const out = await inSpan(
        `storage.${op}`,
        { "dropsite.storage.op": op, "dropsite.storage.store": this.kind },
        call,
      );
      m.storageDuration.observe({ store: this.kind, op }, (performance.now() - started) / 1000);
      // A call begun before the store was marked down says nothing about it now.
      if (mark === this.marks) this.markUp();
      return out;
    } catch (err) {
      m.storageDuration.observe({ store: this.kind, op }, (performance.now() - started) / 1000);
      if (!notTheStore()) m.storageErrors.inc({ store: this.kind, op });
      if (err instanceof ApiError || notTheStore() || !isUnreachable(err)) throw err;
      this.markDown(err);
      throw storageUnavailable(err);
    }
  }

  /**
   * Resolves when calls may go to the store; throws the 503 while it is known down. The first
   * call after the window waits for the probe it starts (so a store that is back costs no extra
   * 503); calls that come while the probe is out are refused at once, as during the window.
   */
  private async ready(): Promise<void> {
    if (this.downUntil === 0) return;
    if (this.now() < this.downUntil || this.probing) throw storageUnavailable(this.cause);
    this.probing = this.probe().finally(() => (this.probing = undefined));
    await this.probing;
    if (this.downUntil !== 0) throw storageUnavailable(this.cause);
  }

  private async probe(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.inner.list("healthz/"),
        new Promise((_, reject) => {
          timer = setTimeout(
            () =>
              reject(Object.assign(new Error(`no answer within ${this.probeTimeoutMs} ms`), { name: "TimeoutError" })),
            this.probeTimeoutMs,
          );
        }),
      ]);
      this.markUp();
    } catch (err) {
      this.markDown(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private markDown(cause: unknown): void {
    const wasDown = this.downUntil !== 0;
    this.downUntil = this.now() + this.downMs;
    this.cause = cause;
    this.marks++;
    if (!wasDown) this.onChange(true, cause);
  }

  private markUp(): void {
    if (this.downUntil === 0) return;
    this.downUntil = 0;
    this.cause = undefined;
    this.onChange(false, undefined);
  }
}

function logChange(kind: string): (down: boolean, cause: unknown) => void {
  return (down, cause) => {
    if (down)
      console.error(`[storage] ${kind} store unreachable; failing fast until a probe answers: ${describeCause(cause)}`);
    else console.error(`[storage] ${kind} store answers again`);
  };
}
