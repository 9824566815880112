import { ApiError, type LimitName } from "../errors";
import { readBodyCapped, readBodyChunksCapped } from "../http";
import { filesBodySchema, zipBodySchema } from "../schemas";
import { limits as planLimits, type TierLimits } from "../plans";
import { normalizeFiles, type InputFile } from "./paths";
import { openZip } from "./zip";
import { findDuplicateKey, isBase64 } from "./json";

// Turns a deploy request body into a list of validated files, by Content-Type:
// JSON → FilesBody, zip → archive, anything else → the raw body as index.html.

export type BodyForm = "html" | "json" | "zip";

export function bodyForm(contentType: string | null): BodyForm {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (media === "application/json" || media.endsWith("+json")) return "json";
  if (media === "application/zip" || media === "application/x-zip-compressed" || media === "application/x-zip")
    return "zip";
  return "html";
}

const MB = 1024 * 1024;
const fmt = (n: number) => `${Math.round(n / MB)} MB`;

export function upgradeHint(paid: boolean): { hint?: string; upgrade?: boolean } {
  return paid ? {} : { hint: "Paid plans raise this limit; see upgrade_url.", upgrade: true };
}

/** A drop past its plan's total bytes (every way of writing files checks it: deploys, zips, references, appends). */
export function dropBytesError(bytes: number, max: number, paid: boolean, appending = false): ApiError {
  const what = appending
    ? `Appending these files would make the drop ${bytes} bytes`
    : `These files are ${bytes} bytes`;
  return new ApiError("payload_too_large", `${what}; a drop holds at most ${fmt(max)} (${max} bytes) on this plan.`, {
    docs: "limits",
    ...(paid
      ? { hint: "Split the content into several drops." }
      : {
          hint: "Split the content into several drops; paid plans hold more per drop (see upgrade_url).",
          upgrade: true,
        }),
  });
}

export function fileCapError(count: number, max: number, paid: boolean): ApiError {
  return new ApiError("file_cap_exceeded", `This request has ${count} files; the limit is ${max} per request.`, {
    docs: "limits",
    details: { limit: "files_per_request", allowed: max },
    ...(paid
      ? { hint: `Split the upload: deploy up to ${max} files, then add the rest with POST /deploy/{slug}.` }
      : upgradeHint(false)),
  });
}

/** A 413 with the limit it is about (a key of GET /limits' `limits`) and that limit's value for the caller. */
export function tooLargeError(message: string, paid: boolean, facts: { limit: LimitName; allowed: number }): ApiError {
  return new ApiError("payload_too_large", message, { docs: "limits", ...upgradeHint(paid), details: facts });
}

/**
 * A zip that unpacks past the decompression ratio. The hint says what really lifts it: a plan
 * only if some plan allows a higher ratio (today none does), else sending the folder without a
 * zip or storing the compressible entries uncompressed.
 */
export function ratioError(message: string, ratio: number): ApiError {
  const most = Math.max(...Object.values(planLimits).map((l) => l.decompressionRatio));
  const plan =
    ratio < most
      ? `Paid plans allow up to ${most}x; see upgrade_url.`
      : `No plan lifts this: archives unpack to at most ${ratio}x their size on every plan.`;
  return new ApiError("payload_too_large", message, {
    details: { limit: "decompression_ratio", allowed: ratio },
    hint: `${plan} Deploy the folder with the CLI (\`dropsite deploy ./site\` sends files, not a zip) or the preflight upload flow, or store the highly compressible entries uncompressed (\`zip -0\`, or \`zip -n .js:.json:.css:.html:.svg\`).`,
    upgrade: ratio < most,
    docs: "zip",
  });
}

/**
 * Parses JSON request text, refusing duplicate object keys anywhere (JSON.parse would keep the
 * last one silently; a files map with one path twice is ambiguous). Throws invalid_request.
 */
export function parseJsonStrict(text: string, hint?: string): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON.", { hint, docs: "deploy" });
  }
  const dup = findDuplicateKey(text);
  if (dup) {
    const where = dup.path.length ? ` in ${JSON.stringify(dup.path.join("."))}` : "";
    throw new ApiError("invalid_request", `Duplicate key ${JSON.stringify(dup.key.slice(0, 200))}${where}.`, {
      hint: "Each path may appear once in the files map.",
      docs: "deploy",
    });
  }
  return raw;
}

/** The plan's zip limit passed, by a posted archive or one named by reference. */
export function zipTooLarge(cap: number, paid: boolean): ApiError {
  return tooLargeError(`Zip archives are limited to ${fmt(cap)} on this plan.`, paid, {
    limit: "zip_bytes",
    allowed: cap,
  });
}

/** A deploy body that names a zip archive uploaded after a preflight (`{"zip": {sha256, size}}`), to unpack from storage. */
export interface ZipReference {
  zip: { sha256: string; size: number };
}

function decodeFilesBody(buf: Uint8Array, limits: TierLimits, paid: boolean): InputFile[] | ZipReference {
  const hint = 'Send {"files": {"index.html": "<h1>Hi</h1>"}} with Content-Type: application/json.';
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid UTF-8 JSON.", { hint, docs: "deploy" });
  }
  const raw = parseJsonStrict(text, hint);
  if (raw && typeof raw === "object" && "zip" in raw) {
    const zip = zipBodySchema.safeParse(raw);
    if (!zip.success)
      throw ApiError.fromZod(zip.error, "The zip reference", {
        hint: 'Send {"zip": {"sha256": "<64 hex>", "size": <bytes>}} after a preflight of the same zip.',
        docs: "uploads",
      });
    if (zip.data.zip.size > limits.zipBytes) throw zipTooLarge(limits.zipBytes, paid);
    return zip.data;
  }
  const parsed = filesBodySchema.safeParse(raw);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The FilesBody", { hint: FILES_HINT, docs: "deploy" });
  return decodeFilesMap((raw as { files: unknown }).files, limits, paid);
}

const FILES_HINT =
  'Expected {"files": {"<path>": "<text>" | {"encoding": "base64", "content": "<base64>"} | {"sha256": "<64 hex>", "size": <bytes>}}}.';

/**
 * Decodes the `files` map of a FilesBody (the JSON deploy form and the MCP deploy_files tool):
 * text or base64 values to bytes, with the per-request file cap and the per-file size limit.
 * Pass the map as parsed from JSON, not a zod copy: zod drops "__proto__" keys silently, and
 * such a key must be refused (by normalizeFiles), not ignored. Paths are not normalised here.
 */
export function decodeFilesMap(files: unknown, limits: TierLimits, paid: boolean): InputFile[] {
  const parsed = filesBodySchema.shape.files.safeParse(files);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The files map", { hint: FILES_HINT, docs: "deploy" });
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length === 0) throw new ApiError("invalid_request", "The files map is empty.", { docs: "deploy" });
  if (entries.length > limits.filesPerRequest) throw fileCapError(entries.length, limits.filesPerRequest, paid);
  const encoder = new TextEncoder();
  return entries.map(([path, value]) => {
    let bytes: Uint8Array;
    const ref = value as { sha256?: unknown; size?: unknown } | null;
    if (ref && typeof ref === "object" && typeof ref.sha256 === "string" && typeof ref.size === "number") {
      if (ref.size > limits.fileBytes) {
        throw tooLargeError(
          `The file ${JSON.stringify(path)} is ${ref.size} bytes; the per-file limit is ${fmt(limits.fileBytes)}.`,
          paid,
          { limit: "file_bytes", allowed: limits.fileBytes },
        );
      }
      return { path, bytes: new Uint8Array(0), ref: { sha256: ref.sha256, size: ref.size } };
    }
    if (typeof value === "string") {
      bytes = encoder.encode(value);
    } else {
      const v = value as { encoding?: unknown; content?: unknown };
      if (v === null || typeof v !== "object" || v.encoding !== "base64" || typeof v.content !== "string") {
        throw new ApiError("invalid_request", `Invalid value for ${JSON.stringify(path)}.`, { docs: "deploy" });
      }
      if (!isBase64(v.content)) {
        throw new ApiError("invalid_request", `Invalid base64 content for ${JSON.stringify(path)}.`, {
          hint: "Use standard base64 (A–Z, a–z, 0–9, +, /) with = padding and no line breaks.",
          docs: "deploy",
        });
      }
      bytes = new Uint8Array(Buffer.from(v.content, "base64"));
    }
    if (bytes.byteLength > limits.fileBytes) {
      throw tooLargeError(
        `The file ${JSON.stringify(path)} is ${bytes.byteLength} bytes; the per-file limit is ${fmt(limits.fileBytes)}.`,
        paid,
        { limit: "file_bytes", allowed: limits.fileBytes },
      );
    }
    return { path, bytes };
  });
}

/**
 * Reads and validates a deploy body; nothing past the cap is ever read. A JSON body may name a
 * zip archive by reference instead (the caller unpacks it from storage with {@link openZipBody}).
 */
export async function readDeployFiles(
  req: Request,
  limits: TierLimits,
  paid: boolean,
): Promise<InputFile[] | ZipReference> {
  const form = bodyForm(req.headers.get("content-type"));
  const cap = form === "zip" ? limits.zipBytes : limits.bodyBytes;
  const tooLarge = () =>
    form === "zip"
      ? zipTooLarge(cap, paid)
      : tooLargeError(`HTML and JSON bodies are limited to ${fmt(cap)} on this plan.`, paid, {
          limit: "body_bytes",
          allowed: cap,
        });
  // A zip is kept as the chunks it arrived in (read by ranges, entry by entry); other bodies whole.
  const body =
    form === "zip" ? await readBodyChunksCapped(req, cap, tooLarge) : await readBodyCapped(req, cap, tooLarge);
  const length = body instanceof Uint8Array ? body.byteLength : body.length;
  if (length === 0) {
    throw new ApiError("invalid_request", "The request body is empty.", {
      hint: "Send HTML (text/html), a FilesBody (application/json) or a zip (application/zip).",
      docs: "deploy",
    });
  }
  if (!(body instanceof Uint8Array)) return openZipBody(body.chunks, length, limits, paid);
  if (form === "html") return [{ path: "index.html", bytes: body }];
  const decoded = decodeFilesBody(body, limits, paid);
  return Array.isArray(decoded) ? normalizeFiles(decoded) : decoded;
}

/**
 * Opens a zip archive (the chunks of a posted body, or of an archive read from storage) under
 * the plan's rules: entries, per-file size, the decompression ratio of its `length`, and paths.
 */
export function openZipBody(
  chunks: readonly Uint8Array[],
  length: number,
  limits: TierLimits,
  paid: boolean,
): InputFile[] {
  const files = openZip(chunks, {
    maxFiles: limits.filesPerRequest,
    maxTotalBytes: length * limits.decompressionRatio,
    maxFileBytes: limits.fileBytes,
    tooManyFiles: (n) => fileCapError(n, limits.filesPerRequest, paid),
    tooLarge: (m) => tooLargeError(m, paid, { limit: "file_bytes", allowed: limits.fileBytes }),
    overRatio: (m) => ratioError(m, limits.decompressionRatio),
  });
  return normalizeFiles(files);
}
