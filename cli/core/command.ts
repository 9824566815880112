// What every command module shares: the parsed flags, the API target, the shape of a command in
// cli/dropsite.ts's table, and the checks several commands make.
import { listQuerySchema } from "../../lib/schemas";
import { CliError, EXIT } from "./errors";

export interface Target {
  api: string;
  key?: string;
  /** How the deploy is authorised when not by key, for the progress line. */
  via?: string;
}

export interface Flags {
  api?: string;
  key?: string;
  /** Act as this team with the team key `login --team` stored for it. */
  team?: string;
  name?: string;
  ttl?: string;
  append?: string;
  ifVersion?: string;
  grant?: string;
  limit?: string;
  offset?: string;
  /** webhooks add: comma-separated event names. */
  events?: string;
  /** pull: the version to write out (the CLI's --version prints its own version). */
  at?: string;
  /** pull: write into a folder that is not empty. */
  force?: boolean;
  /** alias: delete the alias instead of pointing it. */
  delete?: boolean;
  /** comments: resolved threads too. */
  all?: boolean;
  /** access: share the drop with these addresses and @domains (comma-separated). */
  emails?: string;
  /** share: the link's lifetime in hours. */
  hours?: string;
  /** stats: the range's first and last UTC day. */
  from?: string;
  to?: string;
  json: boolean;
  quiet: boolean;
  includeDotfiles: boolean;
  passwordStdin: boolean;
  public: boolean;
  /** deploy: open the result in a real browser on the server (?render=1). */
  check: boolean;
  /** deploy --name/--append: stage the new version (?promote=false) instead of making it live. */
  noPromote: boolean;
  /** deploy: point this alias of the drop at the new version (?alias=). */
  alias?: string;
}

/** A command of the table in cli/dropsite.ts: its usage line and help, and what it does. */
export type Command = {
  usage: string;
  about: string;
} & (
  | { run: (target: Target, args: string[], flags: Flags) => Promise<void> }
  /** login and logout: they choose the API themselves (and never fail on a stored one). */
  | { local: (flags: Flags) => Promise<void> }
);

/** The usage error of a command: its usage line, exit code 2. */
export const usageError = (usage: string) => new CliError(`usage: ${usage}`, EXIT.usage);

// The list query's bounds, from the server's own schema (list and versions page with them).
export const LIST_LIMIT = listQuerySchema.shape.limit;
export const LIST_LIMIT_TEXT = `limit ${LIST_LIMIT.unwrap().minValue}-${LIST_LIMIT.unwrap().maxValue}, default ${LIST_LIMIT.def.defaultValue}`;

/**
 * The list query of a paged command: --limit (default the server's) and --offset (default 0).
 * A flag that is not a number goes as NaN, and the server refuses it (400 invalid_request).
 */
export const pageQuery = (flags: Flags): { limit: number; offset: number } => ({
  limit: Number(flags.limit ?? LIST_LIMIT.def.defaultValue),
  offset: Number(flags.offset ?? 0),
});

export function requireKey(target: Target): void {
  if (!target.key) {
    throw new CliError("This command needs an API key.", EXIT.usage, {
      code: "auth_required",
      hint: "Run `dropsite login`, or set DROPSITE_API_KEY.",
    });
  }
}
