import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import mime from "mime";

// A local stand-in of the Vercel Blob API, enough for the real @vercel/blob SDK: the endpoints and
// request shapes below are the ones the SDK 2.x sends (node_modules/@vercel/blob/dist). Point the
// SDK at it with VERCEL_BLOB_API_URL = standin.apiUrl and pass standin.token.
//
//   PUT  {api}/?pathname=…                raw body; options in x-vercel-blob-access, x-content-type,
//                                          x-add-random-suffix, x-allow-overwrite, x-cache-control-max-age, x-if-match
//   POST {api}/mpu?pathname=…             x-mpu-action: create → {key, uploadId}
//                                          x-mpu-action: upload (x-mpu-key, x-mpu-upload-id, x-mpu-part-number) → {etag}
//                                          x-mpu-action: complete (JSON [{partNumber, etag}]) → put result
//   POST {api}/delete                     JSON {urls: [url or pathname]}
//   GET  {api}?url=…                      head
//   GET  {api}?limit&prefix&cursor&mode   list → {blobs, cursor?, hasMore, folders?}
//   GET|HEAD {public}/<pathname>          the stored bytes, with ETag/If-None-Match and Range
//
// Client uploads: a put or multipart upload may carry a client token instead of the read-write
// token (vercel_blob_client_<store>_<base64 of "<hmac hex>.<base64 JSON payload>">, the HMAC-SHA256
// of the payload keyed by the read-write token, as @vercel/blob/client signs it). The stand-in
// checks the signature and store, validUntil ("Token expired"), that the pathname is the token's
// ("does not match the token payload"), maximumSizeInBytes ("the file length cannot be greater
// than …") and allowedContentTypes, and takes allowOverwrite, addRandomSuffix and
// cacheControlMaxAge from the token, not from headers. Any other operation with a client token
// is refused (client_token_not_allowed). API answers carry CORS headers and OPTIONS preflights
// are answered, as the Blob API does for browser uploads.
//
// Errors are {error: {code, message}} as the SDK expects. Blobs live in memory; every request is
// recorded for assertions.

export type RequestKind =
  "put" | "mpu-create" | "mpu-upload" | "mpu-complete" | "delete" | "head" | "list" | "read" | "unknown";

export interface RecordedRequest {
  kind: RequestKind;
  method: string;
  url: string;
  /** The blob pathname the request is about, when it names one. */
  pathname?: string;
  headers: Record<string, string>;
  bodyBytes: number;
  status?: number;
  /** Which credential the request carried, once checked. */
  auth?: "read-write" | "client";
}

/** The constraints a client token carries (the fields @vercel/blob/client signs). */
export interface ClientTokenPayload {
  pathname: string;
  validUntil: number;
  maximumSizeInBytes?: number;
  allowedContentTypes?: string[];
  allowOverwrite?: boolean;
  addRandomSuffix?: boolean;
  cacheControlMaxAge?: number;
}

export interface StoredBlob {
  pathname: string;
  bytes: Buffer;
  contentType: string;
  etag: string;
  uploadedAt: Date;
  cacheControl: string;
  access: "public" | "private";
}

export interface InjectedFailure {
  status: number;
  code: string;
  message?: string;
  /** Which requests fail (default: any API request, not public reads). */
  when?: (r: RecordedRequest) => boolean;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface BlobStandin {
  storeId: string;
  /** A read-write token for this store: vercel_blob_rw_<store>_<secret>. */
  token: string;
  /** Value for VERCEL_BLOB_API_URL. */
  apiUrl: string;
  /** Public blob URLs start with this. */
  publicBaseUrl: string;
  blobs: Map<string, StoredBlob>;
  requests: RecordedRequest[];
  /** Most API requests in flight at once since the last reset(). */
  peakInFlight: number;
  options: {
    /** Delay before answering each API request. */
    latencyMs: number;
    /** Serve 200 with the whole body even when a Range is asked for (servers may ignore Range). */
    ignoreRange: boolean;
    /** Largest page list() answers, whatever limit the client asks (forces cursor pagination). */
    maxListLimit: number;
  };
  urlFor(pathname: string): string;
  failNext(f: InjectedFailure): void;
  /** Forgets recorded requests, the peak, injected failures and options (keeps blobs). */
  reset(): void;
  close(): Promise<void>;
}

const MIN_PART_BYTES = 5 * 1024 * 1024;
const DEFAULT_OPTIONS = { latencyMs: 0, ignoreRange: false, maxListLimit: 1000 };

export async function startBlobStandin(): Promise<BlobStandin> {
  const storeId = `standin${randomBytes(4).toString("hex")}`;
  const token = `vercel_blob_rw_${storeId}_${randomBytes(12).toString("hex")}`;
  const blobs = new Map<string, StoredBlob>();
  const uploads = new Map<
    string,
    { pathname: string; key: string; parts: Map<number, { bytes: Buffer; etag: string }> }
  >();
  const failures: Array<InjectedFailure & { left: number }> = [];
  let inFlight = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, "internal_server_error", String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiPath = "/api/blob";
  const publicPath = `/public/${storeId}/`;

  const standin: BlobStandin = {
    storeId,
    token,
    apiUrl: `${origin}${apiPath}`,
    publicBaseUrl: `${origin}${publicPath}`,
    blobs,
    requests: [],
    peakInFlight: 0,
    options: { ...DEFAULT_OPTIONS },
    urlFor: (pathname) => `${origin}${publicPath}${pathname.split("/").map(encodeURIComponent).join("/")}`,
    failNext(f) {
      failures.push({ ...f, left: f.times ?? 1 });
    },
    reset() {
      standin.requests.length = 0;
      standin.peakInFlight = 0;
      failures.length = 0;
      standin.options = { ...DEFAULT_OPTIONS };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const pathnameOfUrl = (urlOrPathname: string): string => {
    if (!/^https?:\/\//.test(urlOrPathname)) return urlOrPathname;
    const u = new URL(urlOrPathname);
    if (!u.pathname.startsWith(publicPath)) return "";
    return u.pathname.slice(publicPath.length).split("/").map(decodeURIComponent).join("/");
  };

  const putResult = (b: StoredBlob) => {
    const url = standin.urlFor(b.pathname);
    return {
      url,
      downloadUrl: `${url}?download=1`,
      pathname: b.pathname,
      contentType: b.contentType,
      contentDisposition: `inline; filename="${b.pathname.split("/").pop() ?? ""}"`,
      etag: b.etag,
    };
  };

  const listEntry = (b: StoredBlob) => {
    const url = standin.urlFor(b.pathname);
    return {
      url,
      downloadUrl: `${url}?download=1`,
      pathname: b.pathname,
      size: b.bytes.length,
      uploadedAt: b.uploadedAt.toISOString(),
      etag: b.etag,
    };
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", origin);
    const body = await readBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
    );
    const rec: RecordedRequest = {
      kind: "unknown",
      method: req.method ?? "GET",
      url: url.toString(),
      headers,
      bodyBytes: body.length,
    };
    standin.requests.push(rec);
    res.on("finish", () => {
      rec.status = res.statusCode;
    });

    if (url.pathname.startsWith(publicPath)) {
      rec.kind = "read";
      rec.pathname = url.pathname.slice(publicPath.length).split("/").map(decodeURIComponent).join("/");
      if (injectedFailure(rec, res, true)) return;
      return serveBlob(req, res, rec.pathname);
    }
    if (url.pathname !== apiPath && !url.pathname.startsWith(`${apiPath}/`))
      return sendError(res, 404, "not_found", "no such endpoint");
    res.setHeader("access-control-allow-origin", headers.origin || "*");
    res.setHeader("access-control-expose-headers", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "GET, PUT, POST, DELETE, OPTIONS",
        "access-control-allow-headers": headers["access-control-request-headers"] || "*",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }

    inFlight++;
    standin.peakInFlight = Math.max(standin.peakInFlight, inFlight);
    try {
      const rest = url.pathname.slice(apiPath.length);
      const q = url.searchParams;
      if ((rest === "" || rest === "/") && req.method === "PUT") rec.kind = "put";
      else if (rest === "/mpu" && req.method === "POST") rec.kind = `mpu-${headers["x-mpu-action"]}` as RequestKind;
      else if (rest === "/delete" && req.method === "POST") rec.kind = "delete";
      else if ((rest === "" || rest === "/") && req.method === "GET") rec.kind = q.has("url") ? "head" : "list";
      rec.pathname = q.get("pathname") ?? (q.has("url") ? pathnameOfUrl(q.get("url") ?? "") : undefined);

      if (standin.options.latencyMs > 0) await new Promise((r) => setTimeout(r, standin.options.latencyMs));
      let client: ClientTokenPayload | undefined;
      if (headers.authorization === `Bearer ${token}`) rec.auth = "read-write";
      else {
        const found = clientTokenPayload(headers.authorization ?? "");
        if (!found)
          return sendError(res, 403, "forbidden", "Access denied, please provide a valid token for this resource.");
        client = found;
        rec.auth = "client";
      }
      if (!headers["x-api-version"]) return sendError(res, 400, "bad_request", "missing x-api-version");
      if (headers["x-vercel-blob-store-id"] !== storeId)
        return sendError(res, 400, "store_not_found", "This store does not exist.");
      if (client) {
        if (!(rec.kind === "put" || rec.kind.startsWith("mpu-")))
          return sendError(
            res,
            403,
            "client_token_not_allowed",
            "This operation is not available when using a client token.",
          );
        if (Date.now() > client.validUntil) return sendError(res, 400, "bad_request", "Token expired");
        if (q.get("pathname") !== client.pathname)
          return sendError(
            res,
            400,
            "bad_request",
            `The "pathname" ${q.get("pathname") ?? ""} does not match the token payload.`,
          );
        const type = headers["x-content-type"] || mime.getType(client.pathname) || "application/octet-stream";
        if (
          client.allowedContentTypes &&
          !client.allowedContentTypes.some((t) => t === type || (t.endsWith("/*") && type.startsWith(t.slice(0, -1))))
        ) {
          return sendError(res, 400, "bad_request", `contentType ${type} is not allowed`);
        }
        const tooBig =
          client.maximumSizeInBytes !== undefined &&
          (rec.kind === "put" || rec.kind === "mpu-upload") &&
          body.length > client.maximumSizeInBytes;
        if (tooBig)
          return sendError(
            res,
            400,
            "bad_request",
            `the file length cannot be greater than ${client.maximumSizeInBytes} bytes`,
          );
        // Options come from the token, whatever the headers say.
        headers["x-allow-overwrite"] = client.allowOverwrite ? "1" : "0";
        headers["x-add-random-suffix"] = client.addRandomSuffix ? "1" : "0";
        if (client.cacheControlMaxAge !== undefined)
          headers["x-cache-control-max-age"] = String(client.cacheControlMaxAge);
        else delete headers["x-cache-control-max-age"];
      }
      if (injectedFailure(rec, res, false)) return;

      switch (rec.kind) {
        case "put":
          return handlePut(res, headers, q, body);
        case "mpu-create":
        case "mpu-upload":
        case "mpu-complete":
          return handleMpu(rec.kind, res, headers, q, body, client);
        case "delete":
          return handleDelete(res, body);
        case "head":
          return handleHead(res, q);
        case "list":
          return handleList(res, q);
        default:
          return sendError(res, 400, "bad_request", `the stand-in does not implement ${req.method} ${url.pathname}`);
      }
    } finally {
      inFlight--;
    }
  }

  /** The payload of a valid client token of this store (signature checked), else undefined. */
  function clientTokenPayload(authorization: string): ClientTokenPayload | undefined {
    const m = /^Bearer vercel_blob_client_([^_]+)_(.+)$/.exec(authorization);
    if (!m || m[1] !== storeId) return undefined;
    const [signature, payload] = Buffer.from(m[2] ?? "", "base64")
      .toString("utf8")
      .split(".");
    if (!signature || !payload) return undefined;
    const expected = createHmac("sha256", token).update(payload).digest();
    const given = Buffer.from(signature, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as ClientTokenPayload;
      return typeof parsed.pathname === "string" && typeof parsed.validUntil === "number" ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  function injectedFailure(rec: RecordedRequest, res: ServerResponse, isRead: boolean): boolean {
    const f = failures.find((x) => x.left > 0 && (x.when ? x.when(rec) : !isRead));
    if (!f) return false;
    f.left--;
    sendError(res, f.status, f.code, f.message ?? `injected ${f.code}`);
    return true;
  }

  function checkWrite(
    res: ServerResponse,
    headers: Record<string, string>,
    pathname: string | null,
  ): { pathname: string; access: "public" | "private" } | undefined {
    if (!pathname) return void sendError(res, 400, "bad_request", "pathname is required");
    if (pathname.includes("//") || pathname.length > 950)
      return void sendError(res, 400, "bad_request", "invalid pathname");
    const access = headers["x-vercel-blob-access"];
    if (access !== "public" && access !== "private")
      return void sendError(res, 400, "bad_request", "access must be public or private");
    let finalPath = pathname;
    if (headers["x-add-random-suffix"] === "1") {
      const dot = pathname.lastIndexOf(".");
      const suffix = `-${randomBytes(15).toString("base64url").replace(/[-_]/g, "x").slice(0, 20)}`;
      finalPath =
        dot > pathname.lastIndexOf("/")
          ? `${pathname.slice(0, dot)}${suffix}${pathname.slice(dot)}`
          : `${pathname}${suffix}`;
    }
    const existing = blobs.get(finalPath);
    const ifMatch = headers["x-if-match"];
    if (ifMatch && existing?.etag !== ifMatch)
      return void sendError(res, 412, "precondition_failed", "Precondition failed: ETag mismatch.");
    if (existing && headers["x-allow-overwrite"] !== "1" && !ifMatch) {
      return void sendError(
        res,
        400,
        "bad_request",
        "This blob already exists, use `allowOverwrite: true` if you want to overwrite it. Or `addRandomSuffix: true` to generate a unique filename.",
      );
    }
    return { pathname: finalPath, access };
  }

  function store(
    pathname: string,
    access: "public" | "private",
    bytes: Buffer,
    headers: Record<string, string>,
  ): StoredBlob {
    const maxAge = headers["x-cache-control-max-age"] ?? "2592000";
    const b: StoredBlob = {
      pathname,
      bytes,
      contentType: headers["x-content-type"] || mime.getType(pathname) || "application/octet-stream",
      etag: `"${createHash("md5").update(bytes).digest("hex")}"`,
      uploadedAt: new Date(),
      cacheControl: `public, max-age=${maxAge}`,
      access,
    };
    blobs.set(pathname, b);
    return b;
  }

  function handlePut(res: ServerResponse, headers: Record<string, string>, q: URLSearchParams, body: Buffer): void {
    if (q.has("fromUrl")) return sendError(res, 400, "bad_request", "copy is not implemented by the stand-in");
    const w = checkWrite(res, headers, q.get("pathname"));
    if (!w) return;
    sendJson(res, 200, putResult(store(w.pathname, w.access, body, headers)));
  }

  function handleMpu(
    kind: RequestKind,
    res: ServerResponse,
    headers: Record<string, string>,
    q: URLSearchParams,
    body: Buffer,
    client: ClientTokenPayload | undefined,
  ): void {
    const pathname = q.get("pathname");
    if (kind === "mpu-create") {
      const w = checkWrite(res, headers, pathname);
      if (!w) return;
      const uploadId = randomBytes(16).toString("hex");
      const key = `${storeId}/${w.pathname}`;
      uploads.set(uploadId, { pathname: w.pathname, key, parts: new Map() });
      return sendJson(res, 200, { key, uploadId });
    }
    const upload = uploads.get(headers["x-mpu-upload-id"] ?? "");
    if (!upload || upload.pathname !== pathname || decodeURIComponent(headers["x-mpu-key"] ?? "") !== upload.key) {
      return sendError(res, 400, "bad_request", "unknown multipart upload");
    }
    if (kind === "mpu-upload") {
      const n = Number(headers["x-mpu-part-number"]);
      if (!Number.isInteger(n) || n < 1 || n > 10000) return sendError(res, 400, "bad_request", "invalid part number");
      const etag = `"${createHash("md5").update(body).digest("hex")}"`;
      upload.parts.set(n, { bytes: body, etag });
      return sendJson(res, 200, { etag });
    }
    if (kind === "mpu-complete") {
      let parts: Array<{ partNumber: number; etag: string }>;
      try {
        parts = JSON.parse(body.toString("utf8")) as typeof parts;
      } catch {
        return sendError(res, 400, "bad_request", "parts must be JSON");
      }
      if (!Array.isArray(parts) || parts.length === 0) return sendError(res, 400, "bad_request", "no parts");
      const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
      const chunks: Buffer[] = [];
      for (const [i, p] of sorted.entries()) {
        const got = upload.parts.get(p.partNumber);
        if (!got || got.etag !== p.etag)
          return sendError(res, 400, "bad_request", `part ${p.partNumber} is missing or its etag does not match`);
        // S3's rule: every part but the last is at least 5 MiB.
        if (i < sorted.length - 1 && got.bytes.length < MIN_PART_BYTES)
          return sendError(res, 400, "bad_request", `part ${p.partNumber} is too small`);
        chunks.push(got.bytes);
      }
      const total = Buffer.concat(chunks);
      if (client?.maximumSizeInBytes !== undefined && total.length > client.maximumSizeInBytes) {
        return sendError(
          res,
          400,
          "bad_request",
          `the file length cannot be greater than ${client.maximumSizeInBytes} bytes`,
        );
      }
      const w = checkWrite(res, headers, pathname);
      if (!w) return;
      uploads.delete(headers["x-mpu-upload-id"] ?? "");
      return sendJson(res, 200, putResult(store(upload.pathname, w.access, total, headers)));
    }
    sendError(res, 400, "bad_request", "unknown x-mpu-action");
  }

  function handleDelete(res: ServerResponse, body: Buffer): void {
    let urls: unknown;
    try {
      urls = (JSON.parse(body.toString("utf8")) as { urls?: unknown }).urls;
    } catch {
      return sendError(res, 400, "bad_request", "body must be JSON");
    }
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== "string"))
      return sendError(res, 400, "bad_request", "urls must be strings");
    if (urls.length > 1000) return sendError(res, 400, "bad_request", "at most 1000 urls per request");
    for (const u of urls as string[]) blobs.delete(pathnameOfUrl(u));
    sendJson(res, 200, {});
  }

  function handleHead(res: ServerResponse, q: URLSearchParams): void {
    const b = blobs.get(pathnameOfUrl(q.get("url") ?? ""));
    if (!b) return sendError(res, 404, "not_found", "The requested blob does not exist");
    const p = putResult(b);
    sendJson(res, 200, {
      ...p,
      size: b.bytes.length,
      uploadedAt: b.uploadedAt.toISOString(),
      cacheControl: b.cacheControl,
    });
  }

  function handleList(res: ServerResponse, q: URLSearchParams): void {
    const asked = Number(q.get("limit") ?? "1000");
    if (!Number.isInteger(asked) || asked < 1 || asked > 1000)
      return sendError(res, 400, "bad_request", "limit must be 1..1000");
    const limit = Math.min(asked, standin.options.maxListLimit);
    const prefix = q.get("prefix") ?? "";
    const after = q.get("cursor") ? Buffer.from(q.get("cursor") ?? "", "base64url").toString("utf8") : undefined;
    const folded = q.get("mode") === "folded";
    // One sorted sequence of entries: blob pathnames, or in folded mode their first folder below prefix.
    const entries = new Map<string, StoredBlob | null>();
    for (const b of blobs.values()) {
      if (!b.pathname.startsWith(prefix)) continue;
      const slash = folded ? b.pathname.indexOf("/", prefix.length) : -1;
      if (slash >= 0) entries.set(b.pathname.slice(0, slash + 1), null);
      else entries.set(b.pathname, b);
    }
    const names = [...entries.keys()].sort().filter((n) => after === undefined || n > after);
    const page = names.slice(0, limit);
    const hasMore = names.length > limit;
    const last = page[page.length - 1];
    sendJson(res, 200, {
      blobs: page.flatMap((n) => {
        const b = entries.get(n);
        return b ? [listEntry(b)] : [];
      }),
      ...(folded ? { folders: page.filter((n) => entries.get(n) === null) } : {}),
      hasMore,
      ...(hasMore && last !== undefined ? { cursor: Buffer.from(last).toString("base64url") } : {}),
    });
  }

  function serveBlob(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const b = blobs.get(pathname);
    if (!b || (b.access === "private" && req.headers.authorization !== `Bearer ${token}`)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("The page could not be found\n\nNOT_FOUND\n");
      return;
    }
    const common = {
      etag: b.etag,
      "last-modified": b.uploadedAt.toUTCString(),
      "cache-control": b.cacheControl,
      "accept-ranges": "bytes",
      "content-disposition": `inline; filename="${encodeURIComponent(pathname.split("/").pop() ?? "")}"`,
    };
    const inm = req.headers["if-none-match"];
    if (inm && (inm.trim() === "*" || inm.split(",").some((t) => t.trim().replace(/^W\//, "") === b.etag))) {
      res.writeHead(304, common).end();
      return;
    }
    const size = b.bytes.length;
    const range = standin.options.ignoreRange ? undefined : req.headers.range;
    if (range) {
      const r = parseRange(range, size);
      if (r === "unsatisfiable") {
        res.writeHead(416, { ...common, "content-range": `bytes */${size}` }).end();
        return;
      }
      if (r) {
        const slice = b.bytes.subarray(r.start, r.end + 1);
        res.writeHead(206, {
          ...common,
          "content-type": b.contentType,
          "content-length": slice.length,
          "content-range": `bytes ${r.start}-${r.end}/${size}`,
        });
        res.end(req.method === "HEAD" ? undefined : slice);
        return;
      }
    }
    res.writeHead(200, { ...common, "content-type": b.contentType, "content-length": size });
    res.end(req.method === "HEAD" ? undefined : b.bytes);
  }

  return standin;
}

/** One `bytes=` range; undefined for syntax we ignore (multiple ranges), as a server may. */
function parseRange(header: string, size: number): { start: number; end: number } | "unsatisfiable" | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}
