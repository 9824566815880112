// dropsite versions and rollback: a drop's retained versions and making one live again.
import { answer, apiClient } from "../core/api";
import {
  LIST_LIMIT_TEXT,
  pageQuery,
  requireKey,
  usageError,
  type Command,
  type Flags,
  type Target,
} from "../core/command";
import { CliError, EXIT } from "../core/errors";
import { formatBytes, print, table } from "../core/output";

const VERSIONS_USAGE = "dropsite versions <slug> [--limit N] [--offset N]";
const ROLLBACK_USAGE = "dropsite rollback <slug> <version>";
const PROMOTE_USAGE = "dropsite promote <slug> <version>";
/** What stands for a preview URL whose host label would pass 63 characters (the API answers null). */
const NO_URL = "no URL: the host name would be too long";
const ALIASES_USAGE = "dropsite aliases <slug>";
const ALIAS_USAGE = "dropsite alias <slug> <name> <version> | dropsite alias <slug> <name> --delete";

async function cmdVersions(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(VERSIONS_USAGE);
  const res = await answer(
    apiClient(target).GET("/drops/{slug}/versions", { params: { path: { slug }, query: pageQuery(flags) } }),
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
  table(["VERSION", "LIVE", "KIND", "FILES", "SIZE", "CREATED"], rows);
  const shown = Number(flags.offset ?? 0) + res.versions.length;
  if (res.total > shown) process.stdout.write(`(${shown} of ${res.total}; use --offset ${shown} for more)\n`);
}

/** rollback and promote: the same route (POST /drops/{slug}/rollback moves live to any retained version). */
const makeLive =
  (usage: string) =>
  async (target: Target, args: string[], flags: Flags): Promise<void> => {
    requireKey(target);
    const [slug, version] = args;
    if (args.length !== 2 || slug === undefined || version === undefined) throw usageError(usage);
    if (!/^\d{1,10}$/.test(version))
      throw new CliError(
        `The version must be a number (dropsite versions ${slug} lists them), got ${JSON.stringify(version)}`,
        EXIT.usage,
      );
    const res = await answer(
      apiClient(target).POST("/drops/{slug}/rollback", {
        params: { path: { slug } },
        body: { version: Number(version) },
      }),
    );
    if (flags.json) return print(res);
    process.stdout.write(`${res.url} now serves version ${res.live_version}\n`);
  };

export const versions: Command = {
  usage: VERSIONS_USAGE,
  about: `A drop's retained versions, newest first, with the live one marked (${LIST_LIMIT_TEXT}).`,
  run: cmdVersions,
};

export const rollback: Command = {
  usage: ROLLBACK_USAGE,
  about: "Make a retained version of a drop live again (older or newer): served at once, no upload.",
  run: makeLive(ROLLBACK_USAGE),
};

export const promote: Command = {
  usage: PROMOTE_USAGE,
  about:
    "Make a staged version live (one deployed with --no-promote, or any retained one): the rollback route, served at once.",
  run: makeLive(PROMOTE_USAGE),
};

async function cmdAliases(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(ALIASES_USAGE);
  const res = await answer(apiClient(target).GET("/drops/{slug}/aliases", { params: { path: { slug } } }));
  if (flags.json) return print(res);
  if (res.aliases.length === 0) return void process.stdout.write(`${slug} has no aliases\n`);
  table(
    ["ALIAS", "VERSION", "URL", "UPDATED"],
    res.aliases.map((a) => [a.name, String(a.version), a.url ?? NO_URL, a.updated_at]),
  );
}

async function cmdAlias(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const client = apiClient(target);
  if (flags.delete) {
    const [slug, name] = args;
    if (args.length !== 2 || slug === undefined || name === undefined) throw usageError(ALIAS_USAGE);
    // 204: no body.
    await answer(client.DELETE("/drops/{slug}/aliases/{name}", { params: { path: { slug, name } } }));
    if (flags.json) return print({ deleted: name });
    return void process.stdout.write(`Deleted alias ${name} of ${slug}\n`);
  }
  const [slug, name, version] = args;
  if (args.length !== 3 || slug === undefined || name === undefined || version === undefined)
    throw usageError(ALIAS_USAGE);
  if (!/^\d{1,10}$/.test(version))
    throw new CliError(
      `The version must be a number (dropsite versions ${slug} lists them), got ${JSON.stringify(version)}`,
      EXIT.usage,
    );
  const res = await answer(
    client.PUT("/drops/{slug}/aliases/{name}", {
      params: { path: { slug, name } },
      body: { version: Number(version) },
    }),
  );
  if (flags.json) return print(res);
  process.stdout.write(`${res.url ?? `${name} (${NO_URL})`} now serves version ${res.version}\n`);
}

export const aliases: Command = {
  usage: ALIASES_USAGE,
  about: "A drop's aliases: names that point at a retained version, each served at <slug>---<name>.",
  run: cmdAliases,
};

export const alias: Command = {
  usage: ALIAS_USAGE,
  about:
    "Point an alias of a drop at a retained version (created, or moved; <slug>---<name> serves it at once), or delete it with --delete.",
  run: cmdAlias,
};
