// dropsite list, delete, claim, access and share: an account's drops.
import { SHARE_LINK_MAX_HOURS } from "../../lib/plans";
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
import { print, table } from "../core/output";

const DELETE_USAGE = "dropsite delete <slug>";
const CLAIM_USAGE = "dropsite claim <slug> <claim_token>";
const ACCESS_USAGE = "dropsite access <slug> --password-stdin | --public | --emails a@x.org,@client.com | members";
const SHARE_USAGE = "dropsite share <slug> --hours N";

async function cmdList(target: Target, flags: Flags): Promise<void> {
  requireKey(target);
  const res = await answer(apiClient(target).GET("/drops", { params: { query: pageQuery(flags) } }));
  if (flags.json) return print(res);
  if (res.drops.length === 0) {
    process.stdout.write("No drops.\n");
    return;
  }
  const rows = res.drops.map((d) => [d.slug, d.name ?? "-", String(d.file_count), d.expires_at ?? "never", d.url]);
  table(["SLUG", "NAME", "FILES", "EXPIRES", "URL"], rows);
  const shown = Number(flags.offset ?? 0) + res.drops.length;
  if (res.total > shown) process.stdout.write(`(${shown} of ${res.total}; use --offset ${shown} for more)\n`);
}

async function cmdDelete(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(DELETE_USAGE);
  const res = await answer(apiClient(target).DELETE("/drops/{slug}", { params: { path: { slug } } }));
  if (flags.json) return print(res);
  process.stdout.write(`Deleted ${res.deleted}\n`);
}

async function cmdClaim(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug, token] = args;
  if (args.length !== 2 || slug === undefined || token === undefined) throw usageError(CLAIM_USAGE);
  const res = await answer(apiClient(target).POST("/claim", { body: { slug, claim_token: token } }));
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
  const [slug, mode] = args;
  // `members` (a team's drop) is a word after the slug, alone; the other two are flags.
  const emails = flags.emails !== undefined;
  const members = args.length === 2 && mode === "members" && !flags.passwordStdin && !flags.public && !emails;
  const chosen = [flags.passwordStdin, flags.public, emails].filter(Boolean).length;
  if (!members && (args.length !== 1 || slug === undefined || chosen !== 1)) throw usageError(ACCESS_USAGE);
  const body = members
    ? ({ mode: "members" } as const)
    : flags.public
      ? ({ mode: "public" } as const)
      : emails
        ? ({
            mode: "emails",
            allow: flags
              .emails!.split(",")
              .map((e) => e.trim())
              .filter(Boolean),
          } as const)
        : ({ mode: "password", password: await readStdinSecret() } as const);
  const res = await answer(apiClient(target).PUT("/drops/{slug}/access", { params: { path: { slug: slug! } }, body }));
  if (flags.json) return print(res);
  process.stdout.write(
    res.mode === "password"
      ? `${res.slug} is password-protected; earlier unlocks no longer work.\n`
      : res.mode === "members"
        ? `${res.slug} is members-only: only logged-in members of its team can see it; earlier unlocks no longer work.\n`
        : res.mode === "emails"
          ? `${res.slug} is shared with ${(res.allow ?? []).join(", ")}: visitors sign in with a link mailed to their address.\n`
          : `${res.slug} is public.\n`,
  );
}

async function cmdShare(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined || flags.hours === undefined || !/^[0-9]{1,6}$/.test(flags.hours))
    throw usageError(SHARE_USAGE);
  const res = await answer(
    apiClient(target).POST("/drops/{slug}/share-links", {
      params: { path: { slug } },
      body: { expires_in_hours: Number(flags.hours) },
    }),
  );
  if (flags.json) return print(res);
  process.stdout.write(
    `${res.url}\n(works until ${res.expires_at}; revoke: DELETE /drops/${slug}/share-links/${res.id})\n`,
  );
}

export const share: Command = {
  usage: SHARE_USAGE,
  about: `A link that opens a password or emails drop for whoever has it, for N hours (1 to ${SHARE_LINK_MAX_HOURS}). Any change of the drop's access ends it.`,
  run: cmdShare,
};

export const list: Command = {
  usage: "dropsite list [--limit N] [--offset N]",
  about: `Your drops, newest first (${LIST_LIMIT_TEXT}).`,
  run: (target, _args, flags) => cmdList(target, flags),
};

export const deleteDrop: Command = { usage: DELETE_USAGE, about: "Delete a drop and purge its files.", run: cmdDelete };

export const access: Command = {
  usage: ACCESS_USAGE,
  about:
    "Protect a drop with a password read from stdin (one line; its line ending is not part of it), share it with named addresses and @domains (--emails; each signs in with a one-time link by mail), open a team's drop to the team's members only (members), or make it public again. Every change signs out everyone who unlocked it.",
  run: cmdAccess,
};

export const claim: Command = {
  usage: CLAIM_USAGE,
  about: "Move an anonymous drop into your account (the token works once).",
  run: cmdClaim,
};
