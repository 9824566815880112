// The tools over an account's drops: list, show, versions and rollback, delete, access.
import { rulesLine } from "../../deploy/report-text";
import { deleteDrop, getDrop, listDrops } from "../../drops/manage";
import { listDropVersions, rollbackToVersion } from "../../drops/versions";
import { setAccess } from "../../drops/access";
import { ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS } from "../../plans";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../../schemas";
import {
  accessResponseSchema,
  deleteDropResponseSchema,
  dropDetailSchema,
  listDropsResponseSchema,
  rollbackResponseSchema,
  versionsListSchema,
} from "../../schemas";
import {
  deleteDropArgs,
  getDropArgs,
  listDropsArgs,
  listVersionsArgs,
  rollbackDropArgs,
  VERSIONS_RULE,
} from "../schemas";
import { setAccessArgs } from "../access-schemas";
import { accountCaller, READS, tool } from "./define";

export const dropTools = [
  tool({
    name: "list_drops",
    title: "List my drops",
    description: `List the drops of the account whose API key is sent, newest first, with URL, name, file count and expiry. Pages with limit (1–${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}) and offset. Requires a key.`,
    input: listDropsArgs,
    output: listDropsResponseSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const page = await listDrops(call.ctx, c.account, {
        limit: args.limit ?? LIST_LIMIT_DEFAULT,
        offset: args.offset ?? 0,
      });
      const lines = page.drops.map(
        (d) =>
          `- ${d.slug}${d.name ? ` (${d.name})` : ""}: ${d.url} · ${d.file_count} files · ${d.expires_at ? `expires ${d.expires_at}` : "no expiry"}`,
      );
      return {
        structured: page,
        text: [
          `${page.total} drop${page.total === 1 ? "" : "s"} in this account; showing ${page.drops.length}.`,
          ...lines,
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "get_drop",
    title: "Show one drop",
    description:
      "Show one of the account's drops by slug: URL, name, plan, expiry, its files with sizes and content types (up to 1000), and its site rules (_redirects and _headers, with counts). Requires a key.",
    input: getDropArgs,
    output: dropDetailSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const d = await getDrop(call.ctx, c.account, args.slug);
      const lines = d.files.map((f) => `- ${f.path} (${f.size} bytes, ${f.content_type})`);
      return {
        structured: d,
        text: [
          `${d.url}${d.name ? ` (${d.name})` : ""} · plan ${d.plan} · access ${d.access} · ${d.file_count} files, ${d.total_bytes} bytes · ${d.expires_at ? `expires ${d.expires_at}` : "no expiry"}`,
          ...lines,
          ...(d.files_truncated ? ["(more files not listed)"] : []),
          ...[rulesLine(d)].filter((l) => l !== undefined),
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "list_versions",
    title: "List a drop's versions",
    description: `List the retained versions of one of the account's drops, newest first: number, time, file count, size, kind (deploy, replace, append) and which one is live; rollback_drop makes one live. ${VERSIONS_RULE} Requires a key.`,
    input: listVersionsArgs,
    output: versionsListSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const v = await listDropVersions(call.ctx, c.account, args.slug, {
        limit: args.limit ?? LIST_LIMIT_DEFAULT,
        offset: args.offset ?? 0,
      });
      const lines = v.versions.map(
        (x) =>
          `- version ${x.version}${x.live ? " (live)" : ""}: ${x.kind} at ${x.created_at} · ${x.file_count} files, ${x.total_bytes} bytes`,
      );
      return {
        structured: v,
        text: [
          `${v.total} retained version${v.total === 1 ? "" : "s"}; live version ${v.live_version}.`,
          ...lines,
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "rollback_drop",
    title: "Roll a drop back (or forward) to a version: the promote",
    description: `Make a retained version of one of the account's drops live (list_versions shows them): a pointer move, served at once. Works forwards too, so it is also the promote of a staged version (deploy_named or append_files with promote: false); the next deploy_named or append_files builds on the live version. ${VERSIONS_RULE} Requires a key. An unknown or pruned version answers not_found.`,
    input: rollbackDropArgs,
    output: rollbackResponseSchema,
    // Replaces what the drop serves; the same call twice leaves the same version live.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await rollbackToVersion(call.ctx, c.account, args.slug, args.version);
      return { structured: r, text: `${r.url} now serves version ${r.live_version}.` };
    },
  }),
  tool({
    name: "delete_drop",
    title: "Delete a drop",
    description:
      "Delete one of the account's drops by slug: its files and URL are removed for good (edge caches may serve it for up to 60 s). Requires a key. Drops of other accounts answer not_found.",
    input: deleteDropArgs,
    output: deleteDropResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await deleteDrop(call.ctx, c.account, args.slug);
      return { structured: r, text: `Deleted drop ${r.deleted}.` };
    },
  }),
  tool({
    name: "set_access",
    title: "Protect a drop with a password or for its team's members, or make it public",
    description:
      `Set who may see one of the account's drops: mode "password" with a password (${ACCESS_PASSWORD_MIN_CHARS}–${ACCESS_PASSWORD_MAX_CHARS} characters) shows visitors a password form on every path until they enter it; mode "members" (a team's drop only) lets in only logged-in members of the owning team; mode "emails" with allow (addresses and @domains) lets in whoever opens a one-time sign-in link mailed to an address on the list (the server needs SMTP_URL and MAIL_FROM); mode "public" opens it to anyone with the URL. ` +
      "Every call signs out every visitor who unlocked it before (a new emails list only those taken off it). Any plan; anonymous drops cannot be protected (claim them first). Requires a key. The password is never returned: tell your human what you set.",
    input: setAccessArgs,
    output: accessResponseSchema,
    // It replaces the drop's policy and signs every visitor out: destructive, and not idempotent.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await setAccess(call.ctx, c.account, args.slug, {
        mode: args.mode,
        ...(args.password === undefined ? {} : { password: args.password }),
        ...(args.allow === undefined ? {} : { allow: args.allow }),
      });
      return {
        structured: r,
        text:
          r.mode === "password"
            ? `Drop ${r.slug} is now password-protected; visitors see a password form. Earlier unlocks no longer work.`
            : r.mode === "members"
              ? `Drop ${r.slug} is now members-only: visitors log in, and only members of the owning team see it. Earlier unlocks no longer work.`
              : r.mode === "emails"
                ? `Drop ${r.slug} is now for ${(r.allow ?? []).join(", ")}: a visitor enters an address on that list and opens the one-time sign-in link mailed to it. Viewers taken off the list are signed out.`
                : `Drop ${r.slug} is now public: anyone with its URL can see it.`,
      };
    },
  }),
] as const;
