// Where the CLI talks to and with which key: flags, environment and the stored config file.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { CliError, EXIT } from "./errors";
import type { Flags, Target } from "./command";

export const DEFAULT_API = "http://localhost:3000";

interface StoredConfig {
  api?: string;
  apiKey?: string;
  /** Team keys stored by `dropsite login --team SLUG`, by team slug (for the same api). */
  teamKeys?: Record<string, string>;
}

/** A team's slug as the service spells it (a vanity sub's pattern, loosely). */
const TEAM_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

// ---------------------------------------------------------------- configuration

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), ".config");
  return path.join(base, "dropsite", "config.json");
}

export async function readConfig(): Promise<StoredConfig> {
  try {
    const parsed: unknown = JSON.parse(await readFile(configPath(), "utf8"));
    if (!parsed || typeof parsed !== "object") return {};
    const { api, apiKey, teamKeys } = parsed as Record<string, unknown>;
    const teams =
      teamKeys && typeof teamKeys === "object"
        ? Object.fromEntries(
            Object.entries(teamKeys).filter(
              (e): e is [string, string] => TEAM_SLUG.test(e[0]) && typeof e[1] === "string",
            ),
          )
        : undefined;
    return {
      api: typeof api === "string" ? api : undefined,
      apiKey: typeof apiKey === "string" ? apiKey : undefined,
      ...(teams && Object.keys(teams).length > 0 ? { teamKeys: teams } : {}),
    };
  } catch {
    return {};
  }
}

/** Writes the config readable by the owner only (0600), atomically. */
export async function writeConfig(config: StoredConfig): Promise<void> {
  const file = configPath();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

export const normalizeApi = (u: string): string => {
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

/** The `--team` flag's slug, checked. */
export function teamFlag(flags: Flags): string | undefined {
  if (flags.team === undefined) return undefined;
  if (!TEAM_SLUG.test(flags.team))
    throw new CliError(`--team takes a team's slug, got ${JSON.stringify(flags.team)}`, EXIT.usage);
  return flags.team;
}

/**
 * The API URL and credential for a command: --key, else with --team the team key stored for
 * it, else DROPSITE_API_KEY (or DROP_API_KEY, its earlier name), else the stored key. A stored key is only sent to the API it was stored
 * for, so pointing the client at another server never leaks it.
 */
export async function resolveTarget(flags: Flags): Promise<Target> {
  const config = await readConfig();
  const api = normalizeApi(
    flags.api ?? process.env.DROPSITE_API_URL ?? process.env.DROP_API_URL ?? config.api ?? DEFAULT_API,
  );
  const sameApi = !config.api || normalizeApi(config.api) === api;
  const team = teamFlag(flags);
  if (team !== undefined && flags.key === undefined) {
    const stored = sameApi ? config.teamKeys?.[team] : undefined;
    if (!stored)
      throw new CliError(`No key stored for team ${team} on ${api}.`, EXIT.usage, {
        hint: `Mint a team key on ${api}/dashboard (acting as the team, API keys), then run: dropsite login --team ${team} --key sp_…`,
      });
    return { api, key: stored };
  }
  let key = flags.key ?? process.env.DROPSITE_API_KEY ?? process.env.DROP_API_KEY ?? undefined;
  if (!key && config.apiKey && sameApi) key = config.apiKey;
  return { api, key: key || undefined };
}
