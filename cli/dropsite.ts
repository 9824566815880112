// dropsite: the command-line client. TypeScript, compiled by scripts/build-cli.mjs into
// cli/dist/dropsite.mjs (the package's bin) whenever `npm install` or `npm run build` runs.
// Deploys a folder (by content: only files the server lacks are uploaded; honouring .gitignore
// and .dropignore), an HTML file or a zip,
// with progress on stderr, and manages drops and the stored API key. The request and response
// types are the server's own (lib/schemas.ts); the key pattern is lib/patterns.ts's. Docs: docs/cli.md.

import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { URLSearchParams } from "node:url";
import { parseArgs } from "node:util";
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import { version as VERSION } from "../package.json";
import { createFilter, IGNORE_FILES, type SelectOptions } from "../lib/files/ignore";
import { API_KEY_PATTERN, WEBHOOK_EVENT_TYPES } from "../lib/patterns";
import { reportLines } from "../lib/deploy/report-text";
import { renderLines } from "../lib/render/text";
import {
  deployByContent,
  deployZipByReference,
  sharedTopFolder,
  zipByReference,
  type HashedFile,
} from "../lib/files/upload";
import { limits } from "../lib/plans";
import { listQuerySchema } from "../lib/schemas";
import type {
  appendResponseSchema,
  accessResponseSchema,
  claimResponseSchema,
  deleteDropResponseSchema,
  deployResponseSchema,
  domainDeleteResponseSchema,
  domainSchema,
  domainsListSchema,
  domainVerifyResponseSchema,
  errorEnvelopeSchema,
  limitsResponseSchema,
  listDropsResponseSchema,
  preflightResponseSchema,
  rollbackResponseSchema,
  versionsListSchema,
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhookDeliveriesSchema,
  webhooksListSchema,
} from "../lib/schemas";

type DeployResponse = z.infer<typeof deployResponseSchema>;
type AppendResponse = z.infer<typeof appendResponseSchema>;
type ListDropsResponse = z.infer<typeof listDropsResponseSchema>;
type DeleteDropResponse = z.infer<typeof deleteDropResponseSchema>;
type ClaimResponse = z.infer<typeof claimResponseSchema>;
type AccessResponse = z.infer<typeof accessResponseSchema>;
type LimitsResponse = z.infer<typeof limitsResponseSchema>;
type VersionsList = z.infer<typeof versionsListSchema>;
type RollbackResponse = z.infer<typeof rollbackResponseSchema>;
type WebhookCreated = z.infer<typeof webhookCreatedSchema>;
type WebhookList = z.infer<typeof webhooksListSchema>;
type WebhookDeleted = z.infer<typeof webhookDeletedSchema>;
type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;
type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
type DomainInfo = z.infer<typeof domainSchema>;
type DomainsList = z.infer<typeof domainsListSchema>;
type DomainVerify = z.infer<typeof domainVerifyResponseSchema>;
type DomainDelete = z.infer<typeof domainDeleteResponseSchema>;
type PreflightResponse = z.infer<typeof preflightResponseSchema>;

const DEFAULT_API = "http://localhost:3000";

/** Exit codes: documented in docs/cli.md. */
const EXIT = { ok: 0, api: 1, usage: 2, network: 3 };

const COMMON_OPTIONS = `Options for every command:
  --api URL     API base URL (env DROP_API_URL; default ${DEFAULT_API})
  --key KEY     API key for this command (env DROP_API_KEY; else the one stored by login)
  --json        machine-readable output on stdout
  --quiet, -q   no progress output
  --help, -h    help (of a command: dropsite <command> --help)
  --version     print the version`;

// Numbers in the help texts come from the server's own tables: the plan limits and the list query's schema.
const TTL_MIN_SECONDS = Math.min(...Object.values(limits).map((l) => l.ttlMinSeconds));
const LIST_LIMIT = listQuerySchema.shape.limit;
const LIST_LIMIT_TEXT = `limit ${LIST_LIMIT.unwrap().minValue}-${LIST_LIMIT.unwrap().maxValue}, default ${LIST_LIMIT.def.defaultValue}`;

/** Each command's usage line and what it does, for `dropsite <command> --help`. */
const COMMANDS = {
  deploy: {
    usage:
      "dropsite deploy [dir|file.html|file.zip] [--name N] [--ttl S] [--append SLUG] [--if-version V] [--check] [--grant URL]",
    about: `Deploy a folder (default .), an .html/.htm file or a .zip.
  A folder is deployed by content: only files the server does not have yet are uploaded, and
  the command says how many were unchanged. Files are chosen as the web page's drop zone does (lib/files/ignore.ts):
  .git, node_modules, whatever .gitignore or .dropignore match, and dotfiles are skipped.
  --include-dotfiles  publish dotfiles (.env, .vscode/ ...) too
  --name N       redeploy the named drop in place: same URL (subscribers)
  --ttl S        lifetime in seconds (at least ${TTL_MIN_SECONDS}; plan maximums apply)
  --append SLUG  add new files to an existing drop (subscribers; not with --name or --ttl)
  --if-version V with --name or --append: write only while version V is live (else 409
                 conflict naming the live version; nothing changes)
  --check       open the result in a real browser on the server and print what it saw
                 (console errors, exceptions, failed requests, a blank page, screenshots)
  --grant URL    deploy through a one-time deploy URL (the MCP tool deploy_directory gives one):
                 as the account (or anonymous caller) it was issued to, with its ttl and name;
                 no key needed, and none is sent. Folders still upload only missing files.`,
  },
  list: { usage: "dropsite list [--limit N] [--offset N]", about: `Your drops, newest first (${LIST_LIMIT_TEXT}).` },
  versions: {
    usage: "dropsite versions <slug> [--limit N] [--offset N]",
    about: `A drop's retained versions, newest first, with the live one marked (${LIST_LIMIT_TEXT}).`,
  },
  rollback: {
    usage: "dropsite rollback <slug> <version>",
    about: "Make a retained version of a drop live again (older or newer): served at once, no upload.",
  },
  delete: { usage: "dropsite delete <slug>", about: "Delete a drop and purge its files." },
  access: {
    usage: "dropsite access <slug> --password-stdin | --public",
    about:
      "Protect a drop with a password read from stdin (one line; its line ending is not part of it), or make it public again. Every change signs out everyone who unlocked it.",
  },
  domains: {
    usage: "dropsite domains add <hostname> <slug> | list | verify <hostname> | rm <hostname>",
    about: `Custom domains (Team plan, up to ${limits.team.maxDomains}): serve a drop at your own hostname.
  add     prints the two DNS records to publish: a TXT record proving the name is yours, and
          a CNAME pointing the name at the drop
  verify  looks the TXT record up: active (served) once it holds the value; else pending
  list    your domains and their status
  rm      stop serving the drop at that hostname (the drop stays)`,
  },
  claim: {
    usage: "dropsite claim <slug> <claim_token>",
    about: "Move an anonymous drop into your account (the token works once).",
  },
  limits: { usage: "dropsite limits", about: "The limits that apply to you (anonymous without a key)." },
  webhooks: {
    usage: "dropsite webhooks add <url> [--events E,E] | list | rm <id> | deliveries <id>",
    about: `Your account's webhooks: signed POSTs of every change (docs/webhooks.md).
  add <url>        add one (https, public address); prints its signing secret once
  --events E,E     with add: only these events (default all: ${WEBHOOK_EVENT_TYPES.join(", ")})
  list             your webhooks
  rm <id>          remove one
  deliveries <id>  its latest delivery attempts, newest first`,
  },
  login: {
    usage: "dropsite login [--key sp_...]",
    about: "Check a key against the API and store it (prompts when --key is not given).",
  },
  logout: {
    usage: "dropsite logout",
    about: "Forget the stored key (it keeps working until revoked on the dashboard).",
  },
} as const;
type Command = keyof typeof COMMANDS;
const isCommand = (c: string): c is Command => Object.hasOwn(COMMANDS, c);

const USAGE = `dropsite ${VERSION}: publish static content

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join("\n")}

${COMMON_OPTIONS}`;

const commandHelp = (c: Command) => `Usage: ${COMMANDS[c].usage}

${COMMANDS[c].about}

${COMMON_OPTIONS}`;

/** Fields printed with an error: the API's envelope, its status and client-side codes. */
type ErrorDetails = Partial<ErrorEnvelope> & { status?: number; retry_after?: number; code?: string };

class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** fields for --json output */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

interface Target {
  api: string;
  key?: string;
  /** How the deploy is authorised when not by key, for the progress line. */
  via?: string;
}

interface Flags {
  api?: string;
  key?: string;
  name?: string;
  ttl?: string;
  append?: string;
  ifVersion?: string;
  grant?: string;
  limit?: string;
  offset?: string;
  /** webhooks add: comma-separated event names. */
  events?: string;
  json: boolean;
  quiet: boolean;
  includeDotfiles: boolean;
  passwordStdin: boolean;
  public: boolean;
  /** deploy: open the result in a real browser on the server (?render=1). */
  check: boolean;
}

interface LocalFile {
  rel: string;
  abs: string;
  size: number;
}

interface StoredConfig {
  api?: string;
  apiKey?: string;
}

// ---------------------------------------------------------------- configuration

function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), ".config");
  return path.join(base, "dropsite", "config.json");
}

async function readConfig(): Promise<StoredConfig> {
  try {
    const parsed: unknown = JSON.parse(await readFile(configPath(), "utf8"));
    if (!parsed || typeof parsed !== "object") return {};
    const { api, apiKey } = parsed as Record<string, unknown>;
    return { api: typeof api === "string" ? api : undefined, apiKey: typeof apiKey === "string" ? apiKey : undefined };
  } catch {
    return {};
  }
}

/** Writes the config readable by the owner only (0600), atomically. */
async function writeConfig(config: StoredConfig): Promise<void> {
  const file = configPath();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

const normalizeApi = (u: string): string => {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    throw new CliError(`--api must be an http(s) URL, got ${JSON.stringify(u)}`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`--api must be an http(s) URL, got ${JSON.stringify(u)}`, EXIT.usage);
  return url.href.replace(/\/+$/, "");
};

/**
 * The API URL and credential for a command. A stored key is only sent to the API it was stored
 * for, so pointing the client at another server never leaks it.
 */
async function resolveTarget(flags: Flags): Promise<Target> {
  const config = await readConfig();
  const api = normalizeApi(flags.api ?? process.env.DROP_API_URL ?? config.api ?? DEFAULT_API);
  let key = flags.key ?? process.env.DROP_API_KEY ?? undefined;
  if (!key && config.apiKey && (!config.api || normalizeApi(config.api) === api)) key = config.apiKey;
  return { api, key: key || undefined };
}

// ---------------------------------------------------------------- progress

const MB = 1024 * 1024;
function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < MB) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / MB).toFixed(1)} MB`;
}

interface Progress {
  update(done: number, extra?: string): void;
  done(): void;
  /** Leaves the bar line so error output starts on a fresh line. */
  abort(): void;
}

/** A progress reporter on stderr: a redrawn bar on a TTY, a plain line per 25% otherwise (CI logs). */
function progress(
  label: string,
  total: number,
  opts: { quiet: boolean; unit: "bytes" | "files"; tty?: boolean },
): Progress {
  const tty = opts.tty ?? Boolean(process.stderr.isTTY);
  const started = Date.now();
  let lastDraw = 0;
  let nextStep = 0;
  const describe = (done: number, extra: string) => {
    const amount = opts.unit === "bytes" ? `${formatBytes(done)} / ${formatBytes(total)}` : `${done}/${total} files`;
    return `${amount}${extra ? `, ${extra}` : ""}`;
  };
  const bar: Progress = {
    update(done, extra = "") {
      if (opts.quiet) return;
      const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 80 && done < total) return;
        lastDraw = now;
        const width = 24;
        const filled = Math.round((pct / 100) * width);
        const secs = (now - started) / 1000;
        const rate = opts.unit === "bytes" && secs > 0.2 ? ` ${formatBytes(Math.round(done / secs))}/s` : "";
        process.stderr.write(
          `\r\x1b[2K${label.padEnd(10)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(pct).padStart(3)}% ${describe(done, extra)}${rate}`,
        );
      } else {
        // One line per quarter reached, so CI logs show movement without a line per chunk.
        if (pct < nextStep) return;
        process.stderr.write(`${label.toLowerCase()}: ${pct}% (${describe(done, extra)})\n`);
        while (nextStep <= pct) nextStep += 25;
      }
    },
    done() {
      if (opts.quiet) return;
      bar.update(total);
      if (tty) process.stderr.write("\n");
    },
    abort() {
      if (!opts.quiet && tty) process.stderr.write("\n");
    },
  };
  return bar;
}

// ---------------------------------------------------------------- collecting files

/**
 * Files of a folder, relative POSIX paths, skipping .git, node_modules and anything matched by
 * a .gitignore (at any depth, scoped to its folder) or a .dropignore.
 */
async function collectFiles(root: string, opts: SelectOptions): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  // Ignore files found so far (path → text): each applies to its own folder and below, and the
  // walk meets a folder's ignore files before anything inside it.
  const ignoreFiles: Record<string, string> = {};
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of IGNORE_FILES) {
      try {
        ignoreFiles[rel ? `${rel}/${name}` : name] = await readFile(path.join(dir, name), "utf8");
      } catch {
        /* no such file */
      }
    }
    const skip = createFilter(ignoreFiles, opts);
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      let info = await lstat(abs);
      if (info.isSymbolicLink()) {
        try {
          info = await stat(abs);
        } catch {
          continue; // dangling link
        }
        if (info.isDirectory()) continue; // never follow linked folders (cycles, escaping the root)
      }
      const isDir = info.isDirectory();
      if (skip(childRel, isDir)) continue;
      if (isDir) await walk(abs, childRel);
      else if (info.isFile()) out.push({ rel: childRel, abs, size: info.size });
    }
  }
  await walk(root, "");
  return out;
}

// ---------------------------------------------------------------- HTTP

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
function httpCall(method: string, url: string, opts: CallOptions = {}): Promise<HttpAnswer> {
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
function parseAnswer<T>(res: HttpAnswer): T {
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
function checkUpload(res: HttpAnswer): void {
  if (res.status < 300) return;
  const xml = /<Code>([^<]*)<\/Code>[\s\S]*?<Message>([^<]*)<\/Message>/.exec(res.text);
  if (xml)
    throw new CliError(`Storage refused the upload: ${xml[2]}`, EXIT.api, {
      status: res.status,
      code: `storage_${xml[1]}`,
    });
  parseAnswer<unknown>(res);
}

/** One API call; the answer is the server's response type (`T`, from lib/schemas.ts). */
async function apiCall<T>(
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

// ---------------------------------------------------------------- commands

/** Builds the body of a deploy from a file: .html/.htm is sent as HTML, .zip as is. */
async function deployBody(target: string): Promise<{ body: Buffer; contentType: string; description: string }> {
  const ext = path.extname(target).toLowerCase();
  const body = await readFile(target);
  if (ext === ".zip")
    return {
      body,
      contentType: "application/zip",
      description: `${path.basename(target)} (${formatBytes(body.byteLength)})`,
    };
  if (ext === ".html" || ext === ".htm")
    return { body, contentType: "text/html; charset=utf-8", description: `${path.basename(target)} as index.html` };
  throw new CliError(`Deploy a folder, an .html file or a .zip; got ${target}`, EXIT.usage);
}

interface LocalHashedFile extends HashedFile {
  abs: string;
}

/**
 * Deploys a folder by content (docs/uploads.md, lib/files/upload.ts): hashes every file, asks
 * the server which contents it lacks (POST /deploy/preflight), uploads only those, in parallel
 * with one progress display, then deploys a FilesBody of {sha256, size} references.
 */
async function deployFolder(
  target: Target,
  dir: string,
  endpoint: string,
  preflightPath: string,
  flags: Flags,
  extraHeaders: Record<string, string> = {},
): Promise<{ res: DeployResponse | AppendResponse; unchanged: number; total: number }> {
  const files = await collectFiles(dir, { includeDotfiles: flags.includeDotfiles });
  if (files.length === 0)
    throw new CliError(`Nothing to deploy in ${dir} (everything is empty or ignored).`, EXIT.usage);
  const strip = sharedTopFolder(files.map((f) => f.rel));
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  if (!flags.quiet && !flags.json)
    process.stderr.write(
      `Deploying ${files.length} files (${formatBytes(totalBytes)}) to ${target.api}${target.via ? ` (${target.via})` : target.key ? "" : " (anonymous)"}\n`,
    );
  const hashing = progress("Hashing", totalBytes, { quiet: flags.quiet, unit: "bytes" });
  const hashed: LocalHashedFile[] = [];
  let read = 0;
  for (const f of files) {
    const data = await readFile(f.abs);
    hashed.push({
      path: f.rel.slice(strip.length),
      abs: f.abs,
      sha256: createHash("sha256").update(data).digest("hex"),
      size: data.byteLength,
    });
    read += data.byteLength;
    hashing.update(read, `${hashed.length}/${files.length} files`);
  }
  hashing.done();
  const json = { "content-type": "application/json" };
  let bar: Progress | undefined;
  try {
    const outcome = await deployByContent<LocalHashedFile, DeployResponse | AppendResponse>(
      hashed,
      {
        preflight: (body) =>
          apiCall<PreflightResponse>(target.api, target.key, "POST", preflightPath, {
            body: Buffer.from(body),
            headers: json,
          }),
        read: (file) => readFile(file.abs),
        upload: async (u, file, onSent) => {
          // The target is sent as it is: the app's PUT, or straight to storage (with the storage's own headers).
          checkUpload(
            await httpCall(u.method, u.url, { body: await readFile(file.abs), headers: u.headers, onUpload: onSent }),
          );
        },
        deploy: (body, uploadToken) =>
          apiCall<DeployResponse | AppendResponse>(target.api, target.key, "POST", endpoint, {
            body: Buffer.from(body),
            headers: { ...json, ...extraHeaders, "x-upload-token": uploadToken },
          }),
      },
      (p) => {
        bar ??= progress("Uploading", p.totalBytes, { quiet: flags.quiet, unit: "bytes" });
        // 100% only once the server has checked and stored every content.
        const done = p.doneFiles === p.totalFiles;
        bar.update(
          done ? p.totalBytes : Math.min(p.sentBytes, p.totalBytes - 1),
          `${p.doneFiles}/${p.totalFiles} files`,
        );
      },
    );
    bar?.done();
    return { res: outcome.result, unchanged: outcome.unchanged, total: hashed.length };
  } catch (err) {
    bar?.abort();
    throw err;
  }
}

/**
 * Deploys a zip file by reference (docs/uploads.md, "Zips by reference"): preflight its hash and
 * size, upload it to its target (straight to storage where the server's store allows), deploy
 * `{"zip": {sha256, size}}`. No request body to the app is then larger than 4 MB.
 */
async function deployZipFile(
  target: Target,
  file: string,
  endpoint: string,
  preflightPath: string,
  flags: Flags,
  extraHeaders: Record<string, string>,
): Promise<DeployResponse | AppendResponse> {
  const bytes = await readFile(file);
  const zip: HashedFile = {
    path: path.basename(file),
    sha256: createHash("sha256").update(bytes).digest("hex"),
    size: bytes.byteLength,
  };
  if (!flags.quiet && !flags.json)
    process.stderr.write(
      `Deploying ${zip.path} (${formatBytes(zip.size)}) to ${target.api}${target.via ? ` (${target.via})` : target.key ? "" : " (anonymous)"}\n`,
    );
  const json = { "content-type": "application/json" };
  const bar = progress("Uploading", zip.size, { quiet: flags.quiet, unit: "bytes" });
  try {
    const res = await deployZipByReference<HashedFile, DeployResponse | AppendResponse>(
      zip,
      {
        preflight: (body) =>
          apiCall<PreflightResponse>(target.api, target.key, "POST", preflightPath, {
            body: Buffer.from(body),
            headers: json,
          }),
        upload: async (u, _file, onSent) =>
          checkUpload(await httpCall(u.method, u.url, { body: bytes, headers: u.headers, onUpload: onSent })),
        deploy: (body, uploadToken) =>
          apiCall<DeployResponse | AppendResponse>(target.api, target.key, "POST", endpoint, {
            body: Buffer.from(body),
            headers: { ...json, ...extraHeaders, "x-upload-token": uploadToken },
          }),
      },
      (sent) => bar.update(Math.min(sent, zip.size)),
    );
    bar.done();
    return res;
  } catch (err) {
    bar.abort();
    throw err;
  }
}

/**
 * A one-time deploy URL (or its bare token, on the configured API): the API it belongs to and
 * the deploy and preflight paths it opens. It carries the caller and options, so no key is sent.
 */
function grantTarget(
  grant: string,
  target: Target,
  flags: Flags,
): { target: Target; deploy: string; preflight: string } {
  if (flags.append || flags.name || flags.ttl)
    throw new CliError(
      "--grant cannot be combined with --append, --name or --ttl: the one-time URL fixes them",
      EXIT.usage,
    );
  const m = /^(?:(https?:\/\/.+?))?(?:\/deploy\/once\/)?(dg_[A-Za-z0-9_-]{43})\/?$/.exec(grant.trim());
  if (!m?.[2] || (!m[1] && grant.includes("/")))
    throw new CliError(
      `--grant must be a one-time deploy URL (…/deploy/once/dg_…) or its token, got ${JSON.stringify(grant)}`,
      EXIT.usage,
    );
  const deploy = `/deploy/once/${m[2]}`;
  return {
    target: { api: m[1] ? normalizeApi(m[1]) : target.api, via: "one-time deploy URL" },
    deploy,
    preflight: `${deploy}/preflight`,
  };
}

async function cmdDeploy(given: Target, args: string[], flags: Flags): Promise<void> {
  if (args.length > 1) throw new CliError("deploy takes one path", EXIT.usage);
  if (flags.append && (flags.name || flags.ttl))
    throw new CliError("--append cannot be combined with --name or --ttl", EXIT.usage);
  if (flags.ttl !== undefined && !/^\d+$/.test(flags.ttl))
    throw new CliError(`--ttl must be a whole number of seconds (at least ${TTL_MIN_SECONDS})`, EXIT.usage);
  const extraHeaders: Record<string, string> = {};
  if (flags.ifVersion !== undefined) {
    if (!flags.name && !flags.append)
      throw new CliError("--if-version goes with --name or --append: a new drop has no version to match", EXIT.usage);
    if (!/^[1-9]\d{0,9}$/.test(flags.ifVersion))
      throw new CliError(
        `--if-version must be a version number (1, 2, …), got ${JSON.stringify(flags.ifVersion)}`,
        EXIT.usage,
      );
    extraHeaders["if-match"] = `"${flags.ifVersion}"`;
  }
  const where = args[0] ?? ".";
  const query = new URLSearchParams();
  if (flags.ttl) query.set("ttl", flags.ttl);
  if (flags.name) query.set("name", flags.name);
  if (flags.check && flags.grant !== undefined)
    throw new CliError("--check does not go with --grant: check the drop afterwards with a key", EXIT.usage);
  if (flags.check) query.set("render", "1");
  const once = flags.grant === undefined ? undefined : grantTarget(flags.grant, given, flags);
  const target = once?.target ?? given;
  const p =
    once?.deploy ??
    (flags.append
      ? `/deploy/${encodeURIComponent(flags.append)}${flags.check ? "?render=1" : ""}`
      : `/deploy${query.size ? `?${query.toString()}` : ""}`);
  let info;
  try {
    info = await stat(where);
  } catch {
    throw new CliError(`No such file or folder: ${where}`, EXIT.usage);
  }
  let res: DeployResponse | AppendResponse;
  let unchangedLine: string | undefined;
  if (info.isDirectory()) {
    const outcome = await deployFolder(target, where, p, once?.preflight ?? "/deploy/preflight", flags, extraHeaders);
    res = outcome.res;
    // Nothing to say about unchanged files when the server had none of them (a first deploy).
    if (outcome.unchanged > 0)
      unchangedLine = `${outcome.unchanged} of ${outcome.total} file${outcome.total === 1 ? "" : "s"} unchanged (not uploaded)`;
  } else if (path.extname(where).toLowerCase() === ".zip" && zipByReference(info.size)) {
    res = await deployZipFile(target, where, p, once?.preflight ?? "/deploy/preflight", flags, extraHeaders);
  } else {
    const { body, contentType, description } = await deployBody(where);
    if (!flags.quiet && !flags.json)
      process.stderr.write(
        `Deploying ${description} to ${target.api}${target.via ? ` (${target.via})` : target.key ? "" : " (anonymous)"}\n`,
      );
    const bar = progress("Uploading", body.byteLength, { quiet: flags.quiet, unit: "bytes" });
    try {
      res = await apiCall<DeployResponse | AppendResponse>(target.api, target.key, "POST", p, {
        body,
        headers: { "content-type": contentType, ...extraHeaders },
        onUpload: (sent) => bar.update(sent),
      });
    } catch (err) {
      bar.abort();
      throw err;
    }
    bar.done();
  }
  if (unchangedLine && !flags.quiet) process.stderr.write(`${unchangedLine}\n`);
  if (flags.json) return print(res);
  const lines: string[] = [];
  if ("total_files" in res) lines.push(`Added ${res.files.length} files to ${res.slug} (${res.total_files} in total)`);
  else if (res.unchanged)
    lines.push(`Unchanged: the files equal the live version${res.name ? ` of ${res.name}` : ""}; nothing was written`);
  else
    lines.push(
      `${res.replaced ? "Replaced" : "Deployed"} ${res.files.length} file${res.files.length === 1 ? "" : "s"}${res.name ? ` as ${res.name}` : ""}`,
    );
  lines.push(`URL:     ${res.url}`);
  lines.push(`Version: ${res.version}`);
  lines.push(`Expires: ${res.expires_at ?? "never"}`);
  if ("claim_token" in res && res.claim_token) {
    lines.push(`Claim token: ${res.claim_token}`);
    lines.push(`  This drop is anonymous. To keep it in your account, log in and run:`);
    lines.push(`  dropsite claim ${res.slug} ${res.claim_token}`);
    lines.push(`  (or POST ${target.api}/claim with {"slug", "claim_token"}). The token works once.`);
  }
  lines.push(...reportLines(res.report, 50, "--json prints the whole report"));
  if (res.render) lines.push(...renderLines(res.render, "--json prints the whole check"));
  process.stdout.write(`${lines.join("\n")}\n`);
}

async function cmdList(target: Target, flags: Flags): Promise<void> {
  requireKey(target);
  const q = new URLSearchParams({
    limit: flags.limit ?? String(LIST_LIMIT.def.defaultValue),
    offset: flags.offset ?? "0",
  });
  const res = await apiCall<ListDropsResponse>(target.api, target.key, "GET", `/drops?${q.toString()}`);
  if (flags.json) return print(res);
  if (res.drops.length === 0) {
    process.stdout.write("No drops.\n");
    return;
  }
  const rows = res.drops.map((d) => [d.slug, d.name ?? "-", String(d.file_count), d.expires_at ?? "never", d.url]);
  const head = ["SLUG", "NAME", "FILES", "EXPIRES", "URL"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  process.stdout.write(`${[fmt(head), ...rows.map(fmt)].join("\n")}\n`);
  const shown = Number(flags.offset ?? 0) + res.drops.length;
  if (res.total > shown) process.stdout.write(`(${shown} of ${res.total}; use --offset ${shown} for more)\n`);
}

async function cmdVersions(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw new CliError(`usage: ${COMMANDS.versions.usage}`, EXIT.usage);
  const q = new URLSearchParams({
    limit: flags.limit ?? String(LIST_LIMIT.def.defaultValue),
    offset: flags.offset ?? "0",
  });
  const res = await apiCall<VersionsList>(
    target.api,
    target.key,
    "GET",
    `/drops/${encodeURIComponent(slug)}/versions?${q.toString()}`,
  );
  if (flags.json) return print(res);
  const rows = res.versions.map((v) => [
    String(v.version),
    v.live ? "live" : "",
    v.kind,
    String(v.file_count),
    formatBytes(v.total_bytes),
    v.created_at,
  ]);
  const head = ["VERSION", "LIVE", "KIND", "FILES", "SIZE", "CREATED"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  process.stdout.write(`${[fmt(head), ...rows.map(fmt)].join("\n")}\n`);
  const shown = Number(flags.offset ?? 0) + res.versions.length;
  if (res.total > shown) process.stdout.write(`(${shown} of ${res.total}; use --offset ${shown} for more)\n`);
}

async function cmdRollback(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug, version] = args;
  if (args.length !== 2 || slug === undefined || version === undefined)
    throw new CliError(`usage: ${COMMANDS.rollback.usage}`, EXIT.usage);
  if (!/^\d{1,10}$/.test(version))
    throw new CliError(
      `The version must be a number (dropsite versions ${slug} lists them), got ${JSON.stringify(version)}`,
      EXIT.usage,
    );
  const body = Buffer.from(JSON.stringify({ version: Number(version) }));
  const res = await apiCall<RollbackResponse>(
    target.api,
    target.key,
    "POST",
    `/drops/${encodeURIComponent(slug)}/rollback`,
    { body, headers: { "content-type": "application/json" } },
  );
  if (flags.json) return print(res);
  process.stdout.write(`${res.url} now serves version ${res.live_version}\n`);
}

async function cmdWebhooks(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, arg] = args;
  const usage = () => new CliError(`usage: ${COMMANDS.webhooks.usage}`, EXIT.usage);
  if (sub === "add") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const events = flags.events
      ?.split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    const body = Buffer.from(JSON.stringify({ url: arg, ...(events ? { events } : {}) }));
    const res = await apiCall<WebhookCreated>(target.api, target.key, "POST", "/webhooks", {
      body,
      headers: { "content-type": "application/json" },
    });
    if (flags.json) return print(res);
    process.stdout.write(
      `Added webhook ${res.id}: ${res.url}\nEvents: ${res.events.join(", ")}\nSigning secret (shown once; verify deliveries with it): ${res.secret}\n`,
    );
    return;
  }
  if (sub === "list") {
    if (args.length !== 1) throw usage();
    const res = await apiCall<WebhookList>(target.api, target.key, "GET", "/webhooks");
    if (flags.json) return print(res);
    if (res.webhooks.length === 0) return void process.stdout.write("No webhooks.\n");
    const all = (e: string[]) => (e.length === WEBHOOK_EVENT_TYPES.length ? "all" : e.join(","));
    table(
      ["ID", "EVENTS", "URL"],
      res.webhooks.map((w) => [w.id, all(w.events), w.url]),
    );
    return;
  }
  if (sub === "rm") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const res = await apiCall<WebhookDeleted>(target.api, target.key, "DELETE", `/webhooks/${encodeURIComponent(arg)}`);
    if (flags.json) return print(res);
    process.stdout.write(`Removed webhook ${res.deleted}\n`);
    return;
  }
  if (sub === "deliveries") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const res = await apiCall<WebhookDeliveries>(
      target.api,
      target.key,
      "GET",
      `/webhooks/${encodeURIComponent(arg)}/deliveries`,
    );
    if (flags.json) return print(res);
    if (res.deliveries.length === 0) return void process.stdout.write("No deliveries yet.\n");
    table(
      ["TIME", "EVENT", "TYPE", "ATTEMPT", "RESULT"],
      res.deliveries.map((d) => [
        d.created_at,
        d.event_id,
        d.type,
        String(d.attempt),
        d.error ?? String(d.status_code),
      ]),
    );
    return;
  }
  throw usage();
}

/** Prints rows under a header, columns padded (the last one not). */
function table(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  process.stdout.write(`${[fmt(head), ...rows.map(fmt)].join("\n")}\n`);
}

async function cmdDelete(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw new CliError(`usage: ${COMMANDS.delete.usage}`, EXIT.usage);
  const res = await apiCall<DeleteDropResponse>(target.api, target.key, "DELETE", `/drops/${encodeURIComponent(slug)}`);
  if (flags.json) return print(res);
  process.stdout.write(`Deleted ${res.deleted}\n`);
}

async function cmdClaim(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  if (args.length !== 2) throw new CliError(`usage: ${COMMANDS.claim.usage}`, EXIT.usage);
  const body = Buffer.from(JSON.stringify({ slug: args[0], claim_token: args[1] }));
  const res = await apiCall<ClaimResponse>(target.api, target.key, "POST", "/claim", {
    body,
    headers: { "content-type": "application/json" },
  });
  if (flags.json) return print(res);
  process.stdout.write(`Claimed ${res.slug}: ${res.url} (expires ${res.expires_at ?? "never"})\n`);
}

/** All of stdin, without one final line ending (\n or \r\n): the password of `access --password-stdin`. */
async function readStdinSecret(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function cmdAccess(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined || flags.passwordStdin === flags.public)
    throw new CliError(`usage: ${COMMANDS.access.usage}`, EXIT.usage);
  const body = flags.public ? { mode: "public" } : { mode: "password", password: await readStdinSecret() };
  const res = await apiCall<AccessResponse>(
    target.api,
    target.key,
    "PUT",
    `/drops/${encodeURIComponent(slug)}/access`,
    {
      body: Buffer.from(JSON.stringify(body)),
      headers: { "content-type": "application/json" },
    },
  );
  if (flags.json) return print(res);
  process.stdout.write(
    res.mode === "password"
      ? `${res.slug} is password-protected; earlier unlocks no longer work.\n`
      : `${res.slug} is public.\n`,
  );
}

function domainRecords(d: DomainInfo): string {
  return [
    `  TXT    ${d.verification.name}  "${d.verification.value}"`,
    `  CNAME  ${d.hostname}  ${d.target.value}`,
  ].join("\n");
}

async function cmdDomains(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, ...rest] = args;
  const usage = () => new CliError(`usage: ${COMMANDS.domains.usage}`, EXIT.usage);
  const json = { "content-type": "application/json" };
  if (sub === "add") {
    const [hostname, slug] = rest;
    if (rest.length !== 2 || hostname === undefined || slug === undefined) throw usage();
    const d = await apiCall<DomainInfo>(target.api, target.key, "POST", "/domains", {
      body: Buffer.from(JSON.stringify({ hostname, slug })),
      headers: json,
    });
    if (flags.json) return print(d);
    process.stdout.write(
      `Added ${d.hostname} for ${d.slug} (${d.status}). Publish these DNS records, then run: dropsite domains verify ${d.hostname}\n${domainRecords(d)}\n`,
    );
  } else if (sub === "list" || sub === "ls") {
    if (rest.length !== 0) throw usage();
    const res = await apiCall<DomainsList>(target.api, target.key, "GET", "/domains");
    if (flags.json) return print(res);
    if (res.domains.length === 0) return void process.stdout.write("No custom domains.\n");
    const rows = res.domains.map((d) => [d.hostname, d.slug, d.status]);
    const head = ["HOSTNAME", "SLUG", "STATUS"];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
    const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
    process.stdout.write(`${[fmt(head), ...rows.map(fmt)].join("\n")}\n`);
  } else if (sub === "verify") {
    const [hostname] = rest;
    if (rest.length !== 1 || hostname === undefined) throw usage();
    const d = await apiCall<DomainVerify>(
      target.api,
      target.key,
      "POST",
      `/domains/${encodeURIComponent(hostname)}/verify`,
    );
    if (flags.json) return print(d);
    if (d.status === "active") {
      process.stdout.write(`${d.hostname} is active: it serves ${d.slug}.\n`);
      if (d.vercel?.misconfigured) process.stdout.write(`Vercel does not see the CNAME yet:\n${domainRecords(d)}\n`);
      return;
    }
    const found = d.checks.map((c) =>
      c.error
        ? `the look-up failed (${c.error})`
        : c.found.length
          ? `found ${c.found.map((v) => JSON.stringify(v)).join(", ")}`
          : "no TXT record yet",
    );
    process.stdout.write(
      `${d.hostname} is pending: ${found.join("; ")}. DNS changes can take minutes; publish:\n${domainRecords(d)}\n`,
    );
  } else if (sub === "rm" || sub === "remove") {
    const [hostname] = rest;
    if (rest.length !== 1 || hostname === undefined) throw usage();
    const res = await apiCall<DomainDelete>(
      target.api,
      target.key,
      "DELETE",
      `/domains/${encodeURIComponent(hostname)}`,
    );
    if (flags.json) return print(res);
    process.stdout.write(`Removed ${res.deleted}\n`);
  } else {
    throw usage();
  }
}

async function cmdLimits(target: Target, flags: Flags): Promise<void> {
  const res = await apiCall<LimitsResponse>(target.api, target.key, "GET", "/limits");
  if (flags.json) return print(res);
  const lines = [`Plan: ${res.plan}`];
  for (const [k, v] of Object.entries(res.limits)) {
    const shown = v === null ? "no limit" : typeof v === "number" && k.endsWith("_bytes") ? formatBytes(v) : String(v);
    lines.push(`  ${k.replace(/_/g, " ").padEnd(22)} ${shown}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Reads one line from stdin; hides the typed text on a TTY. */
async function prompt(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  if (process.stdin.isTTY) {
    // Echo nothing but the question while the key is typed.
    const out = rl as unknown as { _writeToOutput: (s: string) => void };
    out._writeToOutput = (s: string) => {
      if (s.includes(question)) process.stderr.write(question);
    };
  } else {
    process.stderr.write(question);
  }
  const answer = await new Promise<string>((resolve) => {
    rl.question(question, resolve);
    rl.on("close", () => resolve(""));
  });
  rl.close();
  if (process.stdin.isTTY) process.stderr.write("\n");
  return answer.trim();
}

async function cmdLogin(flags: Flags): Promise<void> {
  const config = await readConfig();
  const api = normalizeApi(flags.api ?? process.env.DROP_API_URL ?? config.api ?? DEFAULT_API);
  const key =
    flags.key ?? process.env.DROP_API_KEY ?? (await prompt(`API key for ${api} (mint one on ${api}/dashboard): `));
  if (!API_KEY_PATTERN.test(key))
    throw new CliError("That is not an API key: keys are sp_ followed by 43 characters.", EXIT.usage, {
      code: "invalid_key",
    });
  // Any account route answers 401 for an unknown or revoked key; /limits also tells the plan.
  await apiCall<ListDropsResponse>(api, key, "GET", "/drops?limit=1");
  const limitsRes = await apiCall<LimitsResponse>(api, key, "GET", "/limits");
  await writeConfig({ api, apiKey: key });
  if (flags.json) return print({ api, plan: limitsRes.plan, config: configPath() });
  process.stdout.write(`Logged in to ${api} (plan ${limitsRes.plan}). Key stored in ${configPath()}\n`);
}

async function cmdLogout(flags: Flags): Promise<void> {
  const file = configPath();
  const had = (await readConfig()).apiKey !== undefined;
  await rm(file, { force: true });
  if (flags.json) return print({ loggedOut: had });
  process.stdout.write(
    had
      ? `Removed the stored key (${file}). It still works until you revoke it on the dashboard.\n`
      : "No stored key.\n",
  );
}

function requireKey(target: Target): void {
  if (!target.key) {
    throw new CliError("This command needs an API key.", EXIT.usage, {
      code: "auth_required",
      hint: "Run `dropsite login`, or set DROP_API_KEY.",
    });
  }
}

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

// ---------------------------------------------------------------- main

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        api: { type: "string" },
        key: { type: "string" },
        name: { type: "string" },
        ttl: { type: "string" },
        append: { type: "string" },
        "if-version": { type: "string" },
        grant: { type: "string" },
        limit: { type: "string" },
        offset: { type: "string" },
        events: { type: "string" },
        json: { type: "boolean", default: false },
        "include-dotfiles": { type: "boolean", default: false },
        "password-stdin": { type: "boolean", default: false },
        public: { type: "boolean", default: false },
        check: { type: "boolean", default: false },
        quiet: { type: "boolean", short: "q", default: false },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const flags: Flags = {
    ...values,
    ifVersion: values["if-version"],
    json: Boolean(values.json),
    quiet: Boolean(values.quiet),
    includeDotfiles: Boolean(values["include-dotfiles"]),
    passwordStdin: Boolean(values["password-stdin"]),
    public: Boolean(values.public),
    check: Boolean(values.check),
  };
  const [command, ...args] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (values.help) {
    process.stdout.write(`${command && isCommand(command) ? commandHelp(command) : USAGE}\n`);
    return EXIT.ok;
  }
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return EXIT.usage;
  }
  try {
    if (command === "login") await cmdLogin(flags);
    else if (command === "logout") await cmdLogout(flags);
    else {
      const target = await resolveTarget(flags);
      if (command === "deploy") await cmdDeploy(target, args, flags);
      else if (command === "list") await cmdList(target, flags);
      else if (command === "versions") await cmdVersions(target, args, flags);
      else if (command === "rollback") await cmdRollback(target, args, flags);
      else if (command === "delete") await cmdDelete(target, args, flags);
      else if (command === "claim") await cmdClaim(target, args, flags);
      else if (command === "access") await cmdAccess(target, args, flags);
      else if (command === "limits") await cmdLimits(target, flags);
      else if (command === "webhooks") await cmdWebhooks(target, args, flags);
      else if (command === "domains") await cmdDomains(target, args, flags);
      else throw new CliError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`, EXIT.usage);
    }
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof CliError)) {
      process.stderr.write(`dropsite: ${err instanceof Error ? err.message : String(err)}\n`);
      if (flags.json) print({ error: err instanceof Error ? err.message : String(err), code: "client_error" });
      return EXIT.network;
    }
    const d = err.details;
    const lines = [`Error: ${err.message}${d.code ? ` (${d.code}${d.status ? `, HTTP ${d.status}` : ""})` : ""}`];
    if (d.hint) lines.push(`Hint: ${d.hint}`);
    if (d.upgrade_url) lines.push(`Upgrade: ${d.upgrade_url}`);
    if (d.docs_url) lines.push(`Docs: ${d.docs_url}`);
    if (d.unusable) lines.push(`Unusable hashes: ${d.unusable.join(", ")}`);
    if (d.live_version) lines.push(`Live version: ${d.live_version} (dropsite versions lists them)`);
    if (d.retry_after) lines.push(`Retry after ${d.retry_after} s.`);
    process.stderr.write(`${lines.join("\n")}\n`);
    if (flags.json) print({ error: err.message, ...d });
    return err.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
