import { createHmac, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { withDb } from "../db/errors";
import { findVersion, versionFile, versionFiles, type VersionFile } from "../db/readback";
import type { AccountRow, DropRow } from "../db/schema";
import { findDropBySlug } from "../db/queries";
import { queryInteger, slugOr404 } from "../input";
import { READ_FILE_TEXT_BYTES, SIGNED_READ_SECONDS } from "../plans";
import { RULE_FILES } from "../rules/types";
import type { ReadFileResult, VersionFiles } from "../schemas";
import { derivedKey } from "../secret";
import { compressibleType } from "../serve/headers";
import { refuseDisabled } from "../safety/disabled";
import { zipStream } from "./archive";
import { ownedDrop } from "./manage";

// Taking a site back out (DESIGN "Taking a site back out"): any retained version as a zip, its
// files listed and read back one by one, whatever the drop's access mode (the credential is the
// owner's or a team member's, read role and up), and the short-lived signed URL MCP read_file
// hands out for a file it does not answer as text. Every answer that carries a drop's bytes is
// an attachment the browser neither sniffs nor runs (it may be the drop's own HTML).

/** The largest version number a drop can have (PostgreSQL int4). */
const MAX_VERSION = 2_147_483_647;

/** The headers of every answer carrying a drop's bytes (not the drop host's: these never render). */
function readBackHeaders(filename: string, contentType: string): Record<string, string> {
  return {
    "Content-Type": contentType,
    "Content-Disposition": contentDisposition(filename),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Cache-Control": "private, no-store",
  };
}

/** attachment with an ASCII filename and, when the name is not plain ASCII, its UTF-8 form (RFC 6266). */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  if (ascii === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function noVersion(drop: DropRow, version: number | string): ApiError {
  return new ApiError("not_found", `${drop.slug} has no version ${version}: it never existed or was pruned.`, {
    hint: "GET /drops/{slug}/versions lists the retained versions.",
    docs: "versions",
  });
}

/**
 * The version a request names (`?version=N`, decimal digits; the live one when absent), once it
 * is known to be retained: 404 not_found otherwise (a malformed number names no version either).
 */
async function retained(
  ctx: AppContext,
  drop: DropRow,
  raw: string | number | null | undefined,
): Promise<{ version: number; createdAt: Date }> {
  const n = raw === null || raw === undefined ? drop.liveVersion : typeof raw === "number" ? raw : queryInteger(raw);
  if (n === undefined || !Number.isInteger(n) || n < 1 || n > MAX_VERSION)
    throw noVersion(drop, String(raw).slice(0, 20));
  const row = await withDb(() => findVersion(ctx.db, drop.id, n));
  if (!row) throw noVersion(drop, n);
  return row;
}

function noFile(drop: DropRow, version: number, path: string): ApiError {
  return new ApiError(
    "not_found",
    `Version ${version} of ${drop.slug} has no file ${JSON.stringify(path.slice(0, 200))}.`,
    {
      hint: "GET /drops/{slug}/files lists a version's files.",
      docs: "read-back",
    },
  );
}

// GET /drops/{slug}/files – every file of a retained version
export async function listVersionFiles(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  rawVersion: string | number | null | undefined,
): Promise<VersionFiles> {
  const drop = await ownedDrop(ctx, account, slug);
  const { version } = await retained(ctx, drop, rawVersion);
  const rows = await withDb(() => versionFiles(ctx.db, drop.id, version));
  return {
    version,
    files: rows.map((f) => ({ path: f.path, size: f.size, hash: f.sha256, content_type: f.contentType })),
  };
}

/** The bytes of one file as a download; a store that lost them is 404 (the row is all that is left). */
async function fileResponse(ctx: AppContext, drop: DropRow, version: number, file: VersionFile): Promise<Response> {
  const stream = await ctx.storage.get(file.storageRef).catch((err: unknown) => {
    throw new ApiError("upstream_unavailable", "File storage is unavailable; try again shortly.", { cause: err });
  });
  if (!stream) throw noFile(drop, version, file.path);
  const name = file.path.slice(file.path.lastIndexOf("/") + 1);
  return new Response(stream, {
    status: 200,
    headers: { ...readBackHeaders(name, file.contentType), "Content-Length": String(file.size) },
  });
}

async function findFile(ctx: AppContext, drop: DropRow, version: number, path: string): Promise<VersionFile> {
  const file = await withDb(() => versionFile(ctx.db, drop.id, version, path));
  if (!file) throw noFile(drop, version, path);
  return file;
}

// GET /drops/{slug}/files/{path} – one file's bytes, whatever the drop's access mode
export async function readVersionFile(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  path: string,
  rawVersion: string | null,
): Promise<Response> {
  const drop = await ownedDrop(ctx, account, slug);
  const { version } = await retained(ctx, drop, rawVersion);
  return fileResponse(ctx, drop, version, await findFile(ctx, drop, version, path));
}

// GET /drops/{slug}/archive – a retained version as a zip, streamed
export async function archiveVersion(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  rawVersion: string | null,
): Promise<Response> {
  const drop = await ownedDrop(ctx, account, slug);
  const { version, createdAt } = await retained(ctx, drop, rawVersion);
  const rows = await withDb(() => versionFiles(ctx.db, drop.id, version));
  const body = zipStream(
    rows.map((f) => ({
      path: f.path,
      size: f.size,
      compressible: compressibleType(f.contentType),
      open: () => ctx.storage.get(f.storageRef),
    })),
    createdAt,
  );
  return new Response(body, {
    status: 200,
    headers: readBackHeaders(`${drop.slug}-v${version}.zip`, "application/zip"),
  });
}

/** The path segment of a read-back URL: each segment of the file's path percent-encoded. */
export function encodeFilePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** The path of /drops/{slug}/files/{path} as the request spelled it, decoded; null when it names none. */
export function filePathOf(req: Request, slug: string): string | null {
  const pathname = new URL(req.url).pathname;
  const prefix = `/drops/${slug}/files/`;
  if (!pathname.startsWith(prefix)) return null;
  try {
    return pathname.slice(prefix.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    return null;
  }
}

/** The bytes as text, or undefined when they are not valid UTF-8. */
function textOf(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether read_file tries a file as text: a text type (or a rules file), small enough. */
function isTextFile(file: VersionFile): boolean {
  return (
    file.size <= READ_FILE_TEXT_BYTES &&
    (compressibleType(file.contentType) || file.path === RULE_FILES.redirects || file.path === RULE_FILES.headers)
  );
}

const signature = (drop: string, version: number, path: string, expires: number) =>
  createHmac("sha256", derivedKey("read-url")).update(`${drop}\n${version}\n${path}\n${expires}`).digest("base64url");

/** A URL that answers one file's bytes without a credential until it expires. */
function signedUrl(ctx: AppContext, drop: DropRow, version: number, path: string): { url: string; expiresAt: Date } {
  const expires = Math.floor(ctx.now() / 1000) + SIGNED_READ_SECONDS;
  const q = new URLSearchParams({ version: String(version), expires: String(expires) });
  q.set("signature", signature(drop.id, version, path, expires));
  return {
    url: `${ctx.env.BASE_URL}/drops/${drop.slug}/files/${encodeFilePath(path)}?${q}`,
    expiresAt: new Date(expires * 1000),
  };
}

// MCP read_file – a text file as text, anything else as a signed URL
export async function readFileForAgent(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  path: string,
  rawVersion: number | undefined,
): Promise<ReadFileResult> {
  const drop = await ownedDrop(ctx, account, slug);
  const { version } = await retained(ctx, drop, rawVersion);
  const file = await findFile(ctx, drop, version, path);
  const base = {
    slug: drop.slug,
    version,
    path: file.path,
    size: file.size,
    hash: file.sha256,
    content_type: file.contentType,
  };
  if (isTextFile(file)) {
    const stream = await ctx.storage.get(file.storageRef).catch((err: unknown) => {
      throw new ApiError("upstream_unavailable", "File storage is unavailable; try again shortly.", { cause: err });
    });
    if (!stream) throw noFile(drop, version, path);
    const text = textOf(new Uint8Array(await new Response(stream).arrayBuffer()));
    if (text !== undefined) return { ...base, text };
  }
  const { url, expiresAt } = signedUrl(ctx, drop, version, file.path);
  return { ...base, url, expires_at: expiresAt.toISOString() };
}

/** Whether a request carries a signed read URL's parameters (then no credential is read). */
export function isSignedRead(req: Request): boolean {
  return new URL(req.url).searchParams.has("signature");
}

function badSignature(): ApiError {
  return new ApiError("forbidden", "This read URL's signature does not match, or it has expired.", {
    hint: `Signed read URLs answer for ${SIGNED_READ_SECONDS / 60} minutes; ask read_file again for a new one.`,
    docs: "read-back",
  });
}

// GET /drops/{slug}/files/{path}?version&expires&signature – a signed read URL
export async function readSignedFile(ctx: AppContext, rawSlug: string, path: string, req: Request): Promise<Response> {
  const q = new URL(req.url).searchParams;
  const version = queryInteger(q.get("version") ?? "");
  const expires = queryInteger(q.get("expires") ?? "");
  const given = Buffer.from(q.get("signature") ?? "", "base64url");
  if (version === undefined || expires === undefined || expires * 1000 <= ctx.now()) throw badSignature();
  const slug = slugOr404(rawSlug, badSignature);
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  if (!drop) throw badSignature();
  const wanted = Buffer.from(signature(drop.id, version, path, expires), "base64url");
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw badSignature();
  // A link needs no credential, so it could pass a disabled drop's bytes around: not any more.
  refuseDisabled(drop);
  const { version: v } = await retained(ctx, drop, version);
  return fileResponse(ctx, drop, v, await findFile(ctx, drop, v, path));
}
