// dropsite login, logout and limits: the stored key and what applies to it.
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { API_KEY_PATTERN } from "../../lib/patterns";
import { answer, apiClient } from "../core/api";
import type { Command, Flags, Target } from "../core/command";
import { configPath, DEFAULT_API, normalizeApi, readConfig, teamFlag, writeConfig } from "../core/config";
import { CliError, EXIT } from "../core/errors";
import { formatBytes, print } from "../core/output";

async function cmdLimits(target: Target, flags: Flags): Promise<void> {
  const res = await answer(apiClient(target).GET("/limits"));
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
    flags.key ??
    process.env.DROPSITE_API_KEY ??
    process.env.DROP_API_KEY ??
    (await prompt(`API key for ${api} (mint one on ${api}/dashboard): `));
  if (!API_KEY_PATTERN.test(key))
    throw new CliError("That is not an API key: keys are sp_ followed by 43 characters.", EXIT.usage, {
      code: "invalid_key",
    });
  // Any account route answers 401 for an unknown or revoked key; /limits also tells the plan.
  const client = apiClient({ api, key });
  await answer(client.GET("/drops", { params: { query: { limit: 1 } } }));
  const limitsRes = await answer(client.GET("/limits"));
  // Keys stored for another API are forgotten: a stored key only ever goes to its own API.
  const kept = config.api && normalizeApi(config.api) === api ? config : {};
  const team = teamFlag(flags);
  await writeConfig(
    team === undefined ? { ...kept, api, apiKey: key } : { ...kept, api, teamKeys: { ...kept.teamKeys, [team]: key } },
  );
  if (flags.json) return print({ api, plan: limitsRes.plan, config: configPath(), ...(team ? { team } : {}) });
  process.stdout.write(
    team === undefined
      ? `Logged in to ${api} (plan ${limitsRes.plan}). Key stored in ${configPath()}\n`
      : `Stored the key of team ${team} for ${api} (plan ${limitsRes.plan}) in ${configPath()}; add --team ${team} to act as the team.\n`,
  );
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

export const limitsCommand: Command = {
  usage: "dropsite limits",
  about: "The limits that apply to you (anonymous without a key).",
  run: (target, _args, flags) => cmdLimits(target, flags),
};

export const login: Command = {
  usage: "dropsite login [--key sp_...] [--team SLUG]",
  about:
    "Check a key against the API and store it (prompts when --key is not given); with --team, store a team key for that team, used when a command is given --team.",
  local: cmdLogin,
};

export const logout: Command = {
  usage: "dropsite logout",
  about: "Forget the stored key (it keeps working until revoked on the dashboard).",
  local: cmdLogout,
};
