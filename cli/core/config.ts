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
}

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
    const { api, apiKey } = parsed as Record<string, unknown>;
    return { api: typeof api === "string" ? api : undefined, apiKey: typeof apiKey === "string" ? apiKey : undefined };
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

/**
 * The API URL and credential for a command. A stored key is only sent to the API it was stored
 * for, so pointing the client at another server never leaks it.
 */
export async function resolveTarget(flags: Flags): Promise<Target> {
  const config = await readConfig();
  const api = normalizeApi(flags.api ?? process.env.DROP_API_URL ?? config.api ?? DEFAULT_API);
  let key = flags.key ?? process.env.DROP_API_KEY ?? undefined;
  if (!key && config.apiKey && (!config.api || normalizeApi(config.api) === api)) key = config.apiKey;
  return { api, key: key || undefined };
}
