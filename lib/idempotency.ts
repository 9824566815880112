import { createHash, createHmac } from "node:crypto";
import { getContext, type AppContext } from "./context";
import type { Env } from "./env";
import { derivedKey } from "./secret";
import { optionalCaller, type Caller } from "./auth/caller";
import { withDb } from "./db/errors";
import { claimIdempotencyKey, findIdempotencyKey, finishIdempotencyKey, releaseIdempotencyKey } from "./db/idempotency";
import { ApiError } from "./errors";
import { handle, JSON_BODY_CAP, type Handler } from "./http";
import { routeBodyCap } from "./http-routes";
import { IDEMPOTENCY_KEY_MAX_CHARS, IDEMPOTENCY_SECONDS } from "./plans";
import { clientAddress } from "./ratelimit/address";

// Writes that are safe to retry: a request with an Idempotency-Key runs once per caller and key
// within 24 hours. The row (caller, key) is inserted before the write runs; its unique key is
// the lock, so of parallel requests with one key exactly one writes. Later requests with the
// same key replay the stored answer when they are the same request, and answer 409 otherwise
// (or while the first is still in flight, with Retry-After). REST routes wrap their handlers
// with idempotent(); the MCP write tools call runIdempotent() with their own fingerprint.

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** A key still without an answer after this long belongs to a request that died: it makes way. */
const ABANDONED_MS = 15 * 60 * 1000;
/** Seconds a caller is asked to wait while the first request with its key is in flight. */
const IN_FLIGHT_RETRY_SECONDS = 1;

/** 1–255 printable ASCII characters (space to tilde); anything else is 400 invalid_request. */
export function parseIdempotencyKey(raw: unknown): string {
  if (
    typeof raw !== "string" ||
    raw.length < 1 ||
    raw.length > IDEMPOTENCY_KEY_MAX_CHARS ||
    !/^[\x20-\x7e]+$/.test(raw)
  ) {
    throw new ApiError(
      "invalid_request",
      `An idempotency key is 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters.`,
      {
        hint: "Use a random UUID per logical write, and the same one when retrying it.",
        docs: "idempotency",
      },
    );
  }
  return raw;
}

export interface StoredAnswer {
  status: number;
  body: string;
  /** The first answer's own headers (not stored: a replay sends JSON's). */
  headers?: Headers;
}

/** Whether an answer is kept for replay: server failures and rate limits free the key for a retry. */
const keep = (status: number) => status < 500 && status !== 429;

/**
 * Runs `write` at most once for (caller, key): the first answer is stored and returned to every
 * later call with the same fingerprint (`replayed`); another fingerprint, or a call while the
 * first is in flight, is 409 conflict.
 */
export async function runIdempotent(
  ctx: AppContext,
  id: { caller: string; key: string; fingerprint: string },
  write: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { replayed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const now = ctx.now();
    const row = { ...id, createdAt: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_SECONDS * 1000) };
    if (await withDb(() => claimIdempotencyKey(ctx.db, row))) {
      let answer: StoredAnswer;
      try {
        answer = await write();
      } catch (err) {
        await releaseIdempotencyKey(ctx.db, id.caller, id.key, row.createdAt).catch(() => undefined);
        throw err;
      }
      if (keep(answer.status))
        await withDb(() => finishIdempotencyKey(ctx.db, id.caller, id.key, answer.status, answer.body));
      else await releaseIdempotencyKey(ctx.db, id.caller, id.key, row.createdAt).catch(() => undefined);
      return { ...answer, replayed: false };
    }
    const found = await withDb(() => findIdempotencyKey(ctx.db, id.caller, id.key));
    const gone =
      !found ||
      found.expiresAt.getTime() <= now ||
      (found.status === null && now - found.createdAt.getTime() > ABANDONED_MS);
    if (gone) {
      if (found) await withDb(() => releaseIdempotencyKey(ctx.db, id.caller, id.key, found.createdAt));
      if (attempt < 3) continue;
    }
    if (!found || found.fingerprint !== id.fingerprint) {
      throw new ApiError("conflict", "This Idempotency-Key was used for a different request.", {
        hint: "Use a new key for a new write; reuse a key only to retry the identical request.",
        docs: "idempotency",
      });
    }
    if (found.status === null || found.body === null) {
      throw new ApiError("conflict", "A request with this Idempotency-Key is still in flight.", {
        hint: "Wait and retry: the answer of the first request will be replayed.",
        docs: "idempotency",
        headers: { "Retry-After": String(IN_FLIGHT_RETRY_SECONDS) },
      });
    }
    return { status: found.status, body: found.body, replayed: true };
  }
}

/** JSON with every object's keys sorted: the same arguments in another order are the same call. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The same MCP tool call for idempotency: the tool's name and its arguments (in any key order),
 * without idempotency_key itself. Keyed with a secret derived from the server's, so the stored
 * fingerprint tells nothing of the arguments (set_access carries a password).
 */
export function toolCallFingerprint(e: Env, tool: string, args: Record<string, unknown>): string {
  const { idempotency_key: _key, ...rest } = args;
  return createHmac("sha256", derivedKey("idempotency-tool-call", e))
    .update(`mcp\n${tool}\n${canonicalJson(rest)}`)
    .digest("hex");
}

/** Who a key belongs to: the account, or the client address when anonymous. */
async function idempotencyCaller(ctx: AppContext, req: Request): Promise<string> {
  return idempotencyOwner(ctx, req, await optionalCaller(ctx, req));
}

/** idempotencyCaller for a caller already resolved (an MCP tool call's). */
export function idempotencyOwner(ctx: AppContext, req: Request, caller: Caller): string {
  return caller.account ? `a:${caller.account.id}` : `ip:${clientAddress(req, ctx.env)}`;
}

/** Reads a body whole, keeping the chunks as they arrived (never joined). */
async function readChunks(req: Request, cap: number): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  if (!req.body) return chunks;
  let length = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    length += chunk.byteLength;
    if (length > cap) throw new ApiError("payload_too_large", "The request body is over this route's cap.");
    chunks.push(chunk);
  }
  return chunks;
}

/** The same request for idempotency: method, path, query, Content-Type, If-Match and body bytes. */
function fingerprint(req: Request, chunks: Uint8Array[]): string {
  const url = new URL(req.url);
  const hash = createHash("sha256");
  for (const part of [
    req.method,
    url.pathname,
    url.search,
    req.headers.get("content-type") ?? "",
    req.headers.get("if-match") ?? "",
  ])
    hash.update(`${part}\n`);
  for (const c of chunks) hash.update(c);
  return hash.digest("hex");
}

/** A request like `req` whose body is the chunks already read. */
function withBody(req: Request, chunks: Uint8Array[]): Request {
  const body =
    chunks.length === 0
      ? null
      : new ReadableStream<Uint8Array>({
          start(controller) {
            for (const c of chunks) controller.enqueue(c);
            controller.close();
          },
        });
  return new Request(req.url, { method: req.method, headers: req.headers, body, duplex: "half" } as RequestInit);
}

/**
 * Wraps a write route's handler: with an Idempotency-Key header the write runs once per caller
 * and key (runIdempotent); without one the handler runs as before.
 */
export function idempotent<P>(handler: Handler<P>): Handler<P> {
  return async (req, params) => {
    const raw = req.headers.get(IDEMPOTENCY_HEADER);
    if (raw === null) return handler(req, params);
    const key = parseIdempotencyKey(raw);
    const ctx = await getContext();
    const caller = await idempotencyCaller(ctx, req);
    const chunks = await readChunks(req, routeBodyCap(new URL(req.url).pathname) ?? JSON_BODY_CAP);
    const answer = await runIdempotent(ctx, { caller, key, fingerprint: fingerprint(req, chunks) }, async () => {
      const res = await handle(handler, withBody(req, chunks), params);
      return { status: res.status, body: await res.text(), headers: res.headers };
    });
    const headers = new Headers(answer.headers ?? { "Content-Type": "application/json", "Cache-Control": "no-store" });
    if (answer.replayed) headers.set(REPLAYED_HEADER, "true");
    // A 204 (DELETE of an alias) has no body, first time or replayed.
    return new Response(answer.status === 204 ? null : answer.body, { status: answer.status, headers });
  };
}
