// dropsite versions and rollback: a drop's retained versions and making one live again.
import { URLSearchParams } from "node:url";
import type { z } from "zod";
import type { rollbackResponseSchema, versionsListSchema } from "../../lib/schemas";
import {
  LIST_LIMIT,
  LIST_LIMIT_TEXT,
  requireKey,
  usageError,
  type Command,
  type Flags,
  type Target,
} from "../core/command";
import { CliError, EXIT } from "../core/errors";
import { apiCall } from "../core/http";
import { formatBytes, print, table } from "../core/output";

type VersionsList = z.infer<typeof versionsListSchema>;
type RollbackResponse = z.infer<typeof rollbackResponseSchema>;

const VERSIONS_USAGE = "dropsite versions <slug> [--limit N] [--offset N]";
const ROLLBACK_USAGE = "dropsite rollback <slug> <version>";
const PROMOTE_USAGE = "dropsite promote <slug> <version>";

async function cmdVersions(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(VERSIONS_USAGE);
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
