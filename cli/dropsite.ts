// dropsite: the command-line client. TypeScript, compiled by scripts/build-cli.mjs into
// cli/dist/dropsite.mjs (the package's bin) whenever `npm install` or `npm run build` runs.
// Deploys a folder (by content: only files the server lacks are uploaded; honouring .gitignore
// and .dropignore), an HTML file or a zip,
// with progress on stderr, and manages drops and the stored API key. Every API call is a typed
// call of client/ (paths, parameters, bodies and answers from the OpenAPI document) over
// cli/core/transport.ts; the key pattern is lib/patterns.ts's. Docs: docs/cli.md.
// This file is the entry and the command table; each command group is a module of cli/commands/,
// and what they share (HTTP, configuration, output, errors) is in cli/core/.

import { parseArgs } from "node:util";
import { version as VERSION } from "../package.json";
import { access, claim, deleteDrop, list, share } from "./commands/drops";
import { deploy } from "./commands/deploy";
import { domains } from "./commands/domains";
import { limitsCommand, login, logout } from "./commands/account";
import { alias, aliases, promote, rollback, versions } from "./commands/versions";
import { pull } from "./commands/pull";
import { comments, reviewLink } from "./commands/comments";
import { stats } from "./commands/stats";
import { webhooks } from "./commands/webhooks";
import { teams } from "./commands/teams";
import type { Command, Flags } from "./core/command";
import { DEFAULT_API, resolveTarget } from "./core/config";
import { CliError, EXIT } from "./core/errors";
import { print } from "./core/output";

const COMMON_OPTIONS = `Options for every command:
  --api URL     API base URL (env DROP_API_URL; default ${DEFAULT_API})
  --key KEY     API key for this command (env DROPSITE_API_KEY or DROP_API_KEY; else the one stored by login)
  --team SLUG   act as a team, with the team key stored by login --team SLUG --key sp_…
  --json        machine-readable output on stdout
  --quiet, -q   no progress output
  --help, -h    help (of a command: dropsite <command> --help)
  --version     print the version`;

/** The commands, in the order the usage lists them: `dropsite <command> --help` prints one's usage and help. */
const COMMANDS = {
  deploy,
  list,
  versions,
  stats,
  rollback,
  promote,
  aliases,
  alias,
  comments,
  "review-link": reviewLink,
  pull,
  delete: deleteDrop,
  access,
  share,
  domains,
  claim,
  limits: limitsCommand,
  webhooks,
  teams,
  login,
  logout,
} satisfies Record<string, Command>;
type CommandName = keyof typeof COMMANDS;
const isCommand = (c: string | undefined): c is CommandName => c !== undefined && Object.hasOwn(COMMANDS, c);

const USAGE = `dropsite ${VERSION}: publish static content

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join("\n")}

${COMMON_OPTIONS}`;

const commandHelp = (c: CommandName) => `Usage: ${COMMANDS[c].usage}

${COMMANDS[c].about}

${COMMON_OPTIONS}`;

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
        team: { type: "string" },
        name: { type: "string" },
        ttl: { type: "string" },
        append: { type: "string" },
        "if-version": { type: "string" },
        grant: { type: "string" },
        limit: { type: "string" },
        offset: { type: "string" },
        events: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        at: { type: "string" },
        emails: { type: "string" },
        hours: { type: "string" },
        force: { type: "boolean", default: false },
        delete: { type: "boolean", default: false },
        all: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        "include-dotfiles": { type: "boolean", default: false },
        "password-stdin": { type: "boolean", default: false },
        public: { type: "boolean", default: false },
        check: { type: "boolean", default: false },
        "no-promote": { type: "boolean", default: false },
        alias: { type: "string" },
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
    force: Boolean(values.force),
    delete: Boolean(values.delete),
    all: Boolean(values.all),
    noPromote: Boolean(values["no-promote"]),
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
    const known = isCommand(command) ? COMMANDS[command] : undefined;
    if (known && "local" in known) await known.local(flags);
    else {
      const target = await resolveTarget(flags);
      if (!known) throw new CliError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`, EXIT.usage);
      await known.run(target, args, flags);
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
