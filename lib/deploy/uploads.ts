import { SHA256_HEX_PATTERN, UPLOAD_TOKEN_PATTERN } from "../patterns";
import { refuseBlocked } from "../safety/blocks";
import { createHash, randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { withDb } from "../db/errors";
import {
  findContent,
  findUploadGrant,
  heldBytes,
  insertUploadGrant,
  markContentStored,
  pinContents,
  unpinContents,
} from "../db/contents";
import { readBodyCapped } from "../http";
import { sha256Hex } from "../ids";
import { APP_UPLOAD_MAX_BYTES, isPaid, limits, UPLOAD_GRANT_SECONDS } from "../plans";
import { preflightBodySchema, zipReferenceSchema, type PreflightResponse } from "../schemas";
import { mapLimit } from "../concurrency";
import { optionalCaller, type Caller } from "../auth/caller";
import { dropBytesError, fileCapError, parseJsonStrict, tooLargeError, zipTooLarge } from "./body";
import { normalizeFiles } from "./paths";
import { accountScope, contentKey, verifyDirectUpload } from "./contents";
import { oneSizePerHash } from "./hashes";
import { tierOf } from "./quota";
import { preflightCaller } from "./grants";
import { clientAddress } from "../ratelimit/address";
import { enforceLimit } from "../ratelimit/guard";

// The upload protocol: POST /deploy/preflight names the files by hash and size and answers
// which contents are missing and where to PUT them; PUT /deploy/uploads/{token}/{sha256}
// streams one content into storage, verified; a deploy then names files by {sha256, size}.
// An account's uploads land in its own scope (dedup within the account, never across); an
// anonymous caller's in a scope of the preflight's own, usable with its upload token.

export const UPLOAD_TOKEN_HEADER = "x-upload-token";

/** Direct upload targets prepared at once by one preflight (each may read back an earlier upload). */
const TARGET_CONCURRENCY = 4;

type UploadTarget = PreflightResponse["uploads"][number];

function preflightScope(grantId: string): string {
  return `p-${grantId.slice(0, 32)}`;
}

/** POST /deploy/preflight (the dashboard passes the session's caller): the body read under the plan's cap, then {@link preflightFiles}. */
export async function preflight(ctx: AppContext, req: Request, asCaller?: Caller): Promise<PreflightResponse> {
  return preflightFor(ctx, asCaller ?? (await optionalCaller(ctx, req)), req);
}

/** POST /deploy/once/{token}/preflight: a preflight as a one-time deploy grant's caller. */
export async function preflightWithGrant(ctx: AppContext, req: Request, token: string): Promise<PreflightResponse> {
  return preflightFor(ctx, await preflightCaller(ctx, token), req);
}

/** A preflight's body, read under the caller's plan cap, then {@link preflightFiles}. */
async function preflightFor(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  req: Request,
): Promise<PreflightResponse> {
  const tier = tierOf(caller);
  const buf = await readBodyCapped(req, limits[tier].bodyBytes, () =>
    tooLargeError("Preflight bodies are limited like JSON deploy bodies.", isPaid(tier), {
      limit: "body_bytes",
      allowed: limits[tier].bodyBytes,
    }),
  );
  const raw = parseJsonStrict(new TextDecoder().decode(buf), PREFLIGHT_HINT);
  if (!raw || typeof raw !== "object")
    throw new ApiError("invalid_request", "The preflight body is invalid: expected an object.", {
      hint: PREFLIGHT_HINT,
      docs: "uploads",
    });
  if ("zip" in raw) {
    if ("files" in raw)
      throw new ApiError("invalid_request", "The preflight names files or a zip, not both.", {
        hint: PREFLIGHT_HINT,
        docs: "uploads",
      });
    return preflightZip(ctx, caller, raw.zip, clientAddress(req, ctx.env));
  }
  return preflightFiles(ctx, caller, (raw as { files?: unknown }).files, clientAddress(req, ctx.env));
}

const PREFLIGHT_HINT =
  'Send {"files": {"index.html": {"sha256": "<64 hex>", "size": 12}}}, or {"zip": {"sha256": "<64 hex>", "size": 12345}} for one zip archive.';

/**
 * A preflight of one zip archive (`{"zip": {sha256, size}}`): the plan's zip limit applies to
 * its size as to a posted zip's body (the limit exactly passes); its bytes go to the target
 * (straight to storage when over 4 MB and the store takes direct uploads), and a deploy of
 * `{"zip": {sha256, size}}` unpacks it under a posted zip's rules.
 */
export async function preflightZip(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  zip: unknown,
  address: string,
): Promise<PreflightResponse> {
  await (caller.account
    ? enforceLimit(ctx, "preflightAccount", caller.account.id)
    : enforceLimit(ctx, "preflight", address));
  if (!caller.account) await refuseBlocked(ctx, address);
  const parsed = zipReferenceSchema.safeParse(zip);
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The zip reference", {
      under: ["zip"],
      hint: PREFLIGHT_HINT,
      docs: "uploads",
    });
  const tier = tierOf(caller);
  if (parsed.data.size > limits[tier].zipBytes) throw zipTooLarge(limits[tier].zipBytes, isPaid(tier));
  return grantUploads(ctx, caller, [parsed.data], address);
}

/**
 * The preflight of REST and of the MCP preflight_files tool: checks the files map (as parsed
 * from JSON) like a deploy's, holds the contents the caller's scope already has, and answers
 * the missing ones with their upload targets.
 */
export async function preflightFiles(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  files: unknown,
  address: string,
): Promise<PreflightResponse> {
  // Anonymous preflights at the deploy rate per address, an account's per account (lib/ratelimit/policy.ts).
  await (caller.account
    ? enforceLimit(ctx, "preflightAccount", caller.account.id)
    : enforceLimit(ctx, "preflight", address));
  if (!caller.account) await refuseBlocked(ctx, address);
  const tier = tierOf(caller);
  const tierLimits = limits[tier];
  const paid = isPaid(tier);
  const parsed = preflightBodySchema.shape.files.unwrap().safeParse(files);
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The preflight body", {
      under: ["files"],
      hint: PREFLIGHT_HINT,
      docs: "uploads",
    });
  const entries = Object.entries(files as Record<string, { sha256: string; size: number }>);
  if (entries.length === 0) throw new ApiError("invalid_request", "The files map is empty.", { docs: "uploads" });
  if (entries.length > tierLimits.filesPerRequest) throw fileCapError(entries.length, tierLimits.filesPerRequest, paid);
  for (const [path, f] of entries) {
    if (f.size > tierLimits.fileBytes)
      throw tooLargeError(
        `The file ${JSON.stringify(path)} is ${f.size} bytes; the per-file limit is ${Math.round(tierLimits.fileBytes / 1048576)} MB.`,
        paid,
        { limit: "file_bytes", allowed: tierLimits.fileBytes },
      );
  }
  // A preflight for more than one drop may hold is refused before anything is held.
  const total = entries.reduce((n, [, f]) => n + f.size, 0);
  if (total > tierLimits.dropBytes) throw dropBytesError(total, tierLimits.dropBytes, paid);
  // The same path rules as a deploy (normalisation, duplicates, file-and-folder clashes).
  normalizeFiles(entries.map(([path]) => ({ path, bytes: new Uint8Array(0) })));
  return grantUploads(
    ctx,
    caller,
    oneSizePerHash(entries).map(([sha256, size]) => ({ sha256, size })),
    address,
  );
}

/**
 * A preflight's grant: an upload token, the contents held until it expires (what the caller
 * holds for no drop bounded by its plan), and an upload target for each content without bytes.
 */
async function grantUploads(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  keys: Array<{ sha256: string; size: number }>,
  address: string,
): Promise<PreflightResponse> {
  const tier = tierOf(caller);
  const tierLimits = limits[tier];
  const paid = isPaid(tier);
  const token = `ut_${randomBytes(32).toString("base64url")}`;
  const grantId = sha256Hex(token);
  const scope = caller.account ? accountScope(caller.account.id) : preflightScope(grantId);
  const now = new Date(ctx.now());
  const expiresAt = new Date(now.getTime() + UPLOAD_GRANT_SECONDS * 1000);
  const holder = caller.account ? null : sha256Hex(address);
  const rows = await withDb(() =>
    ctx.db.transaction(async (tx) => {
      await insertUploadGrant(tx, { id: grantId, scope, accountId: caller.account?.id ?? null, holder, expiresAt });
      // Held until the grant expires, so nothing the caller is told it has goes before its deploy.
      const pinned = await pinContents(tx, scope, keys, now, expiresAt);
      await unpinContents(
        tx,
        scope,
        keys.map((k) => k.sha256),
      );
      // Stored bytes decide a content's size: a preflight that says otherwise changes nothing.
      const declared = new Map(keys.map((k) => [k.sha256, k.size]));
      const wrong = pinned.filter((r) => r.size !== declared.get(r.sha256));
      if (wrong.length > 0) throw storedSizeConflict(wrong);
      // What the caller now holds for no drop, this preflight's contents included.
      const held = await heldBytes(tx, holder ? { holder } : { scope }, now);
      if (held > tierLimits.heldBytes) throw heldBytesError(held, tierLimits.heldBytes, paid);
      return pinned;
    }),
  );
  const uploads = await mapLimit(
    rows.filter((r) => r.storageRef === null),
    TARGET_CONCURRENCY,
    async (r): Promise<UploadTarget | null> => {
      const direct = ctx.storage.direct;
      if (!direct || r.size <= APP_UPLOAD_MAX_BYTES) {
        return {
          sha256: r.sha256,
          url: `${ctx.env.BASE_URL.replace(/\/$/, "")}/deploy/uploads/${token}/${r.sha256}`,
          method: "PUT",
          headers: { "content-type": "application/octet-stream" },
        };
      }
      // Too large to pass through a function: straight to storage. An account's earlier direct
      // upload that no deploy has used yet is checked now (the target never overwrites); an
      // anonymous preflight's scope is new, so it holds none.
      if (caller.account && (await verifyDirectUpload(ctx, scope, r.sha256))) return null;
      return { sha256: r.sha256, ...(await direct.target(contentKey(scope, r.sha256), r.size, expiresAt, r.sha256)) };
    },
  ).catch((err: unknown) => {
    throw err instanceof ApiError ? err : upstreamUnavailable("file storage", err);
  });
  const targets = uploads.filter((u): u is UploadTarget => u !== null);
  return {
    missing: targets.map((u) => u.sha256),
    uploads: targets,
    upload_token: token,
    expires_at: expiresAt.toISOString(),
  };
}

function heldBytesError(held: number, max: number, paid: boolean): ApiError {
  return new ApiError(
    "payload_too_large",
    `This would hold ${held} bytes of uploads that no drop uses; a caller may hold at most ${Math.round(max / 1048576)} MB (${max} bytes) on this plan.`,
    {
      hint: `Deploy what you uploaded, or wait: uploads no deploy uses are let go after ${UPLOAD_GRANT_SECONDS / 60} minutes.${paid ? "" : " Paid plans hold more; see upgrade_url."}`,
      docs: "uploads",
      upgrade: !paid,
    },
  );
}

function storedSizeConflict(wrong: Array<{ sha256: string; size: number }>): ApiError {
  const [first] = wrong;
  const more = wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : "";
  return new ApiError(
    "invalid_request",
    `The content ${first!.sha256} is stored with ${first!.size} bytes${more}; the preflight names it with another size.`,
    {
      hint: "Send each file's real size: a hash names one content of one size.",
      docs: "uploads",
    },
  );
}

/**
 * The content scope a deploy's files use: the account's, or for an anonymous caller with a
 * live upload token the preflight's; undefined: the drop's own (references are then unusable).
 */
export async function uploadScope(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  token: string | null,
): Promise<string | undefined> {
  if (caller.account) return accountScope(caller.account.id);
  if (!token || !UPLOAD_TOKEN_PATTERN.test(token)) return undefined;
  const grant = await withDb(() => findUploadGrant(ctx.db, sha256Hex(token), new Date(ctx.now())));
  return grant && grant.accountId === null ? grant.scope : undefined;
}

class UploadMismatch extends Error {}

function absentTarget(): ApiError {
  return new ApiError("not_found", "No such upload target, or it has expired.", {
    hint: "POST /deploy/preflight again for fresh targets.",
    docs: "uploads",
  });
}

/** The live grant of an upload token and its content row of `sha256` (what a preflight named); throws not_found. */
async function uploadTarget(ctx: AppContext, token: string, sha256: string, now: Date, address: string) {
  if (!UPLOAD_TOKEN_PATTERN.test(token) || !SHA256_HEX_PATTERN.test(sha256)) throw absentTarget();
  const grant = await withDb(() => findUploadGrant(ctx.db, sha256Hex(token), now));
  if (!grant) throw absentTarget();
  // Anonymous uploads, per address (an account's are bounded by its preflights and held bytes).
  if (grant.accountId === null) await enforceLimit(ctx, "upload", address);
  const row = await withDb(() => findContent(ctx.db, grant.scope, sha256));
  if (!row) throw absentTarget();
  return { scope: grant.scope, size: row.size, holdUntil: grant.expiresAt };
}

/** PUT /deploy/uploads/{token}/{sha256}: streams one content into storage, verified. */
export async function receiveUpload(
  ctx: AppContext,
  req: Request,
  token: string,
  sha256: string,
): Promise<{ sha256: string; size: number }> {
  const now = new Date(ctx.now());
  const target = await uploadTarget(ctx, token, sha256, now, clientAddress(req, ctx.env));
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) !== target.size) {
    throw new ApiError("invalid_request", `The body is ${declared} bytes; this content is ${target.size} bytes.`, {
      docs: "uploads",
    });
  }
  return storeUpload(ctx, { ...target, sha256 }, req.body, now);
}

/**
 * The MCP upload_content tool: one content sent inline (already decoded), verified and stored
 * like a PUT to its upload target. With an upload token it goes where that preflight's targets
 * go; without one an account's content goes into the account's scope, held like a preflight's.
 */
export async function uploadContent(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  input: { sha256: string; bytes: Uint8Array; uploadToken?: string },
  address: string,
): Promise<{ sha256: string; size: number }> {
  const { sha256, bytes } = input;
  const tier = tierOf(caller);
  if (bytes.byteLength > limits[tier].fileBytes) {
    throw tooLargeError(
      `The content is ${bytes.byteLength} bytes; the per-file limit is ${Math.round(limits[tier].fileBytes / 1048576)} MB.`,
      isPaid(tier),
      { limit: "file_bytes", allowed: limits[tier].fileBytes },
    );
  }
  if (sha256Hex(bytes) !== sha256) {
    throw new ApiError("invalid_request", `The content's SHA-256 is ${sha256Hex(bytes)}, not ${sha256}.`, {
      hint: MISMATCH_HINT,
      docs: "uploads",
    });
  }
  const now = new Date(ctx.now());
  let target: { scope: string; size: number; holdUntil: Date };
  if (input.uploadToken !== undefined) {
    target = await uploadTarget(ctx, input.uploadToken, sha256, now, address);
  } else if (caller.account) {
    const scope = accountScope(caller.account.id);
    // Held like a preflight's contents, so bounded like them.
    const held = (await withDb(() => heldBytes(ctx.db, { scope }, now))) + bytes.byteLength;
    if (held > limits[tier].heldBytes) throw heldBytesError(held, limits[tier].heldBytes, isPaid(tier));
    target = { scope, size: bytes.byteLength, holdUntil: new Date(now.getTime() + UPLOAD_GRANT_SECONDS * 1000) };
  } else {
    throw new ApiError("invalid_request", "Anonymous uploads need the upload_token of a preflight.", {
      hint: "Call the preflight first and pass its upload_token.",
      docs: "uploads",
    });
  }
  if (target.size !== bytes.byteLength) {
    throw new ApiError(
      "invalid_request",
      `The content is ${bytes.byteLength} bytes; the preflight declared ${target.size}.`,
      { hint: MISMATCH_HINT, docs: "uploads" },
    );
  }
  // The bytes are in hand, hashed and counted: their size is the content's (see pinContents).
  return storeUpload(
    ctx,
    { ...target, sha256, verified: true },
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(),
    now,
  );
}

const MISMATCH_HINT = "Send the file's exact bytes; the target checks their size and SHA-256.";

/**
 * Streams one content into its scope, verified (size and SHA-256) on the way; a mismatch
 * stores nothing. Pinned for the upload; the hold keeps it until `holdUntil` (the grant's end).
 */
async function storeUpload(
  ctx: AppContext,
  target: { scope: string; sha256: string; size: number; holdUntil: Date; verified?: boolean },
  body: ReadableStream<Uint8Array> | null,
  now: Date,
): Promise<{ sha256: string; size: number }> {
  const { scope, sha256, size } = target;
  const [pinned] = await withDb(() =>
    pinContents(ctx.db, scope, [{ sha256, size }], now, target.holdUntil, target.verified),
  );
  try {
    const { stream: verified, mismatch } = verifyStream(body, sha256, size);
    try {
      if (pinned?.storageRef && pinned.size === size) {
        // Already stored: check the bytes all the same, store nothing.
        await verified.pipeTo(new WritableStream());
      } else {
        const ref = await ctx.storage.putStream(contentKey(scope, sha256), verified, "application/octet-stream");
        await withDb(() => markContentStored(ctx.db, scope, sha256, ref, size));
      }
    } catch (err) {
      throw mismatch() ?? err;
    }
  } catch (err) {
    if (err instanceof UploadMismatch)
      throw new ApiError("invalid_request", err.message, { hint: MISMATCH_HINT, docs: "uploads" });
    if (err instanceof ApiError) throw err;
    throw upstreamUnavailable("file storage", err);
  } finally {
    await withDb(() => unpinContents(ctx.db, scope, [sha256])).catch(() => undefined);
  }
  return { sha256, size };
}

/** Passes a body through, hashing and counting; errors (storing nothing) unless it is exactly `size` bytes of `sha256`. */
function verifyStream(
  body: ReadableStream<Uint8Array> | null,
  sha256: string,
  size: number,
): { stream: ReadableStream<Uint8Array>; mismatch: () => UploadMismatch | undefined } {
  const hash = createHash("sha256");
  let seen = 0;
  let failure: UploadMismatch | undefined;
  const fail = (message: string) => {
    failure = new UploadMismatch(message);
    throw failure;
  };
  const source = body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const stream = source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > size) fail(`The body is longer than the ${size} bytes of this content.`);
        hash.update(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== size) fail(`The body is ${seen} bytes; this content is ${size} bytes.`);
        if (hash.digest("hex") !== sha256) fail("The body's SHA-256 does not match the target's hash.");
      },
    }),
  );
  return { stream, mismatch: () => failure };
}
