// dropsite deploy: a folder by content, a zip by reference, an HTML file or a small zip as the
// request body; straight, as a named redeploy, an append, or through a one-time deploy URL.
import { openAsBlob } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import path from "node:path";
import type { components, DropsiteClient, operations } from "../../client";
import { reportLines } from "../../lib/deploy/report-text";
import { renderLines } from "../../lib/render/text";
import {
  deployByContent,
  deployZipByReference,
  sharedTopFolder,
  zipByReference,
  type HashedFile,
} from "../../lib/files/upload";
import { limits } from "../../lib/plans";
import { answer, apiClient, checkUpload, nodeFetch } from "../core/api";
import type { Command, Flags, Target } from "../core/command";
import { normalizeApi } from "../core/config";
import { CliError, EXIT } from "../core/errors";
import { collectFiles } from "../core/files";
import { send } from "../core/transport";
import { formatBytes, print, progress, type Progress } from "../core/output";

type Schemas = components["schemas"];
type DeployResult = Schemas["DeployResponse"] | Schemas["AppendResponse"];
type Upload = Schemas["PreflightResponse"]["uploads"][number];

/**
 * Where a deploy goes: a new drop or a named one (POST /deploy), an append (POST /deploy/{slug}),
 * or a one-time deploy URL (POST /deploy/once/{token}), each with its preflight.
 */
type DeployRoute =
  | { kind: "new"; query: NonNullable<operations["deploy"]["parameters"]["query"]> }
  | { kind: "append"; slug: string; query: NonNullable<operations["appendToDrop"]["parameters"]["query"]> }
  | { kind: "once"; token: string };

/** One deploy request: the body (JSON references or a raw file), its headers and upload progress. */
interface DeploySend {
  body: Schemas["FilesBody"] | Schemas["ZipBody"] | Blob;
  /** A raw body's type (text/html, application/zip); JSON otherwise. */
  contentType?: string;
  ifMatch?: string;
  uploadToken?: string;
  onUpload?: (sent: number) => void;
}

/** POSTs a deploy to its route with the typed client; the answer is the deploy's or append's. */
function postDeploy(client: DropsiteClient, route: DeployRoute, d: DeploySend): Promise<DeployResult> {
  const init = {
    body: d.body,
    headers: d.contentType ? { "content-type": d.contentType } : undefined,
    fetch: nodeFetch(d.onUpload),
  };
  const header = { "If-Match": d.ifMatch, "X-Upload-Token": d.uploadToken };
  if (route.kind === "once")
    return answer(
      client.POST("/deploy/once/{token}", {
        ...init,
        params: { path: { token: route.token }, header: { "X-Upload-Token": d.uploadToken } },
      }),
    );
  if (route.kind === "append")
    // An append is an account's: its uploads are the account's, with no upload token to send.
    return answer(
      client.POST("/deploy/{slug}", {
        ...init,
        params: { path: { slug: route.slug }, query: route.query, header: { "If-Match": d.ifMatch } },
      }),
    );
  return answer(client.POST("/deploy", { ...init, params: { query: route.query, header } }));
}

/** POSTs the preflight of a deploy's route (its body as lib/files/upload.ts wrote it). */
function postPreflight(client: DropsiteClient, route: DeployRoute, text: string) {
  const body = JSON.parse(text) as Schemas["PreflightBody"];
  return answer(
    route.kind === "once"
      ? client.POST("/deploy/once/{token}/preflight", { params: { path: { token: route.token } }, body })
      : client.POST("/deploy/preflight", { body }),
  );
}

/** Sends a file's bytes to an upload target as the preflight gave it (a URL of the app's or of storage). */
async function uploadTo(u: Upload, bytes: Uint8Array, onSent: (sent: number) => void): Promise<void> {
  await checkUpload(await send(u.method, u.url, { body: bytes, headers: u.headers, onUpload: onSent }));
}

/**
 * The typed calls of a deploy by content or a zip by reference (lib/files/upload.ts's transport):
 * the route's preflight and the deploy with the preflight's upload token (uploads go by
 * `uploadTo`). The JSON bodies are lib/files/upload.ts's (its inline budget counted their bytes):
 * parsed back, openapi-fetch serializes them to the same text.
 */
function contentTransport(client: DropsiteClient, route: DeployRoute, ifMatch: string | undefined) {
  return {
    preflight: (text: string) => postPreflight(client, route, text),
    deploy: (text: string, uploadToken: string) =>
      postDeploy(client, route, {
        body: JSON.parse(text) as Schemas["FilesBody"] | Schemas["ZipBody"],
        ifMatch,
        uploadToken,
      }),
  };
}

// The smallest lifetime any plan accepts, from the plan table (the help text states it).
const TTL_MIN_SECONDS = Math.min(...Object.values(limits).map((l) => l.ttlMinSeconds));

/** Builds the body of a deploy from a file: .html/.htm is sent as HTML, .zip as is. */
async function deployBody(target: string): Promise<{ body: Blob; contentType: string; description: string }> {
  const ext = path.extname(target).toLowerCase();
  const body = await openAsBlob(target);
  if (ext === ".zip")
    return {
      body,
      contentType: "application/zip",
      description: `${path.basename(target)} (${formatBytes(body.size)})`,
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
  route: DeployRoute,
  flags: Flags,
  ifMatch: string | undefined,
): Promise<{ res: DeployResult; unchanged: number; total: number }> {
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
  let bar: Progress | undefined;
  try {
    const outcome = await deployByContent<LocalHashedFile, DeployResult>(
      hashed,
      {
        ...contentTransport(apiClient(target), route, ifMatch),
        read: (file) => readFile(file.abs),
        // The target is sent as it is: the app's PUT, or straight to storage (with the storage's own headers).
        upload: async (u, file, onSent) => uploadTo(u, await readFile(file.abs), onSent),
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
  route: DeployRoute,
  flags: Flags,
  ifMatch: string | undefined,
): Promise<DeployResult> {
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
  const bar = progress("Uploading", zip.size, { quiet: flags.quiet, unit: "bytes" });
  try {
    const res = await deployZipByReference<HashedFile, DeployResult>(
      zip,
      {
        ...contentTransport(apiClient(target), route, ifMatch),
        upload: (u, _file, onSent) => uploadTo(u, bytes, onSent),
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
function grantTarget(grant: string, target: Target, flags: Flags): { target: Target; route: DeployRoute } {
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
  return {
    target: { api: m[1] ? normalizeApi(m[1]) : target.api, via: "one-time deploy URL" },
    route: { kind: "once", token: m[2] },
  };
}

/** The route of a deploy with a key: an append (--append), else a new or named drop (--name, --ttl). */
function keyedRoute(flags: Flags): DeployRoute {
  // ?render=1 (--check), ?promote=false (--no-promote) and ?alias= (--alias) on both.
  const common = {
    ...(flags.noPromote ? { promote: "false" as const } : {}),
    ...(flags.alias !== undefined ? { alias: flags.alias } : {}),
    ...(flags.check ? { render: "1" as const } : {}),
  };
  if (flags.append) return { kind: "append", slug: flags.append, query: common };
  return {
    kind: "new",
    query: {
      ...(flags.ttl ? { ttl: Number(flags.ttl) } : {}),
      ...(flags.name ? { name: flags.name } : {}),
      ...common,
    },
  };
}

async function cmdDeploy(given: Target, args: string[], flags: Flags): Promise<void> {
  if (args.length > 1) throw new CliError("deploy takes one path", EXIT.usage);
  if (flags.append && (flags.name || flags.ttl))
    throw new CliError("--append cannot be combined with --name or --ttl", EXIT.usage);
  if (flags.ttl !== undefined && !/^\d+$/.test(flags.ttl))
    throw new CliError(`--ttl must be a whole number of seconds (at least ${TTL_MIN_SECONDS})`, EXIT.usage);
  let ifMatch: string | undefined;
  if (flags.ifVersion !== undefined) {
    if (!flags.name && !flags.append)
      throw new CliError("--if-version goes with --name or --append: a new drop has no version to match", EXIT.usage);
    if (!/^[1-9]\d{0,9}$/.test(flags.ifVersion))
      throw new CliError(
        `--if-version must be a version number (1, 2, …), got ${JSON.stringify(flags.ifVersion)}`,
        EXIT.usage,
      );
    ifMatch = `"${flags.ifVersion}"`;
  }
  if (flags.noPromote && (!(flags.name || flags.append) || flags.grant !== undefined))
    throw new CliError(
      "--no-promote goes with --name or --append (a new drop is always live), not with --grant",
      EXIT.usage,
    );
  if (flags.alias !== undefined && flags.grant !== undefined)
    throw new CliError(
      "--alias does not go with --grant: a one-time URL carries the alias it was issued with",
      EXIT.usage,
    );
  const where = args[0] ?? ".";
  if (flags.check && flags.grant !== undefined)
    throw new CliError("--check does not go with --grant: check the drop afterwards with a key", EXIT.usage);
  const once = flags.grant === undefined ? undefined : grantTarget(flags.grant, given, flags);
  const target = once?.target ?? given;
  const route = once?.route ?? keyedRoute(flags);
  let info;
  try {
    info = await stat(where);
  } catch {
    throw new CliError(`No such file or folder: ${where}`, EXIT.usage);
  }
  let res: DeployResult;
  let unchangedLine: string | undefined;
  if (info.isDirectory()) {
    const outcome = await deployFolder(target, where, route, flags, ifMatch);
    res = outcome.res;
    // Nothing to say about unchanged files when the server had none of them (a first deploy).
    if (outcome.unchanged > 0)
      unchangedLine = `${outcome.unchanged} of ${outcome.total} file${outcome.total === 1 ? "" : "s"} unchanged (not uploaded)`;
  } else if (path.extname(where).toLowerCase() === ".zip" && zipByReference(info.size)) {
    res = await deployZipFile(target, where, route, flags, ifMatch);
  } else {
    const { body, contentType, description } = await deployBody(where);
    if (!flags.quiet && !flags.json)
      process.stderr.write(
        `Deploying ${description} to ${target.api}${target.via ? ` (${target.via})` : target.key ? "" : " (anonymous)"}\n`,
      );
    const bar = progress("Uploading", body.size, { quiet: flags.quiet, unit: "bytes" });
    try {
      res = await postDeploy(apiClient(target), route, {
        body,
        contentType,
        ifMatch,
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
  lines.push(
    `Version: ${res.version}${res.promoted ? "" : ` (staged: ${res.url} still serves version ${res.live_version})`}`,
  );
  if (res.version_url) lines.push(`Preview: ${res.version_url}`);
  if (res.alias) lines.push(`Alias:   ${res.alias.name} now serves version ${res.version}: ${res.alias.url}`);
  if (!res.promoted) lines.push(`  To make it live: dropsite promote ${res.slug} ${res.version}`);
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

export const deploy: Command = {
  usage:
    "dropsite deploy [dir|file.html|file.zip] [--name N] [--ttl S] [--append SLUG] [--if-version V] [--no-promote] [--alias A] [--check] [--grant URL]",
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
  --no-promote   with --name or --append: create the new version without making it live
                 (the live URL keeps serving; the Preview line is the new version's address;
                 dropsite promote SLUG VERSION makes it live)
  --alias A      point the drop's alias A at the new version in the same request, created or
                 moved (<slug>---A serves it; with a key; CI: --name site --alias pr-42 --no-promote)
  --check       open the result in a real browser on the server and print what it saw
                 (console errors, exceptions, failed requests, a blank page, screenshots)
  --grant URL    deploy through a one-time deploy URL (the MCP tool deploy_directory gives one):
                 as the account (or anonymous caller) it was issued to, with its ttl and name;
                 no key needed, and none is sent. Folders still upload only missing files.`,
  run: cmdDeploy,
};
