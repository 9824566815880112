import { z } from "zod";
import {
  ACCESS_EMAILS_MAX,
  ACCESS_PASSWORD_MAX_CHARS,
  ACCESS_PASSWORD_MIN_CHARS,
  SHARE_LINK_MAX_HOURS,
  VIEWERS_KEPT_DAYS,
} from "../plans";
import { normalAllowEntry } from "../patterns";
import { REDIRECT_STATUSES } from "../rules/types";
import { isoDate, planSchema, versionUrlSchema } from "./common";

// A drop and its routes: the drop and its detail, access (password protection), site rules,
// listing and deleting, the write preconditions (If-Match, Idempotency-Key), versions and rollback.

export const dropSchema = z.object({
  slug: z.string(),
  url: z.url(),
  name: z.string().nullable(),
  file_count: z.int(),
  redeploy_count: z.int(),
  created_at: isoDate,
  updated_at: isoDate,
  expires_at: isoDate.nullable(),
  disabled: z
    .object({ reason: z.string(), at: isoDate })
    .nullable()
    .describe(
      "Set while an operator has disabled the drop: it answers 451 everywhere and refuses writes (403 forbidden); its owner may still delete it or appeal at /report.",
    ),
});
export type Drop = z.infer<typeof dropSchema>;

export const accessModeSchema = z
  .enum(["public", "password", "members", "emails"])
  .describe(
    "public: anyone with the URL; password: visitors who know the drop's password; members: logged-in members of the team that owns the drop; emails: the addresses and @domains of its allow list, each by a one-time sign-in link mailed to it.",
  );

export type AccessMode = z.infer<typeof accessModeSchema>;

/** Code points of the NFC form: what "characters" means for a password. */
export const passwordChars = (s: string) => [...s.normalize("NFC")].length;

export const accessPasswordSchema = z
  .string()
  .refine(
    (s) => passwordChars(s) >= ACCESS_PASSWORD_MIN_CHARS && passwordChars(s) <= ACCESS_PASSWORD_MAX_CHARS,
    `must be ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters`,
  )
  .meta({ minLength: ACCESS_PASSWORD_MIN_CHARS, maxLength: ACCESS_PASSWORD_MAX_CHARS })
  .describe(
    `The drop's password, ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters. Stored only as a slow salted hash; never returned.`,
  );

/** One entry of an emails-only drop's list: an address or `@` plus a domain, compared in lower case. */
export const allowEntrySchema = z
  .string()
  .max(300)
  .transform((s, c) => {
    const entry = normalAllowEntry(s);
    if (entry === null) {
      c.addIssue({ code: "custom", message: `"${s.slice(0, 80)}" is neither an address nor @ and a domain` });
      return z.NEVER;
    }
    return entry;
  })
  .describe(
    "An email address (ana@example.org) or @ and a domain (@client.com: that domain exactly, not its subdomains).",
  );

export const accessAllowSchema = z
  .array(allowEntrySchema)
  .min(1)
  .max(ACCESS_EMAILS_MAX)
  .transform((entries) => [...new Set(entries)])
  .describe(`Who may sign in: 1 to ${ACCESS_EMAILS_MAX} addresses and @domains, compared case-insensitively.`);

export const accessBodySchema = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("public") }),
  z.strictObject({ mode: z.literal("password"), password: accessPasswordSchema }),
  z.strictObject({ mode: z.literal("members") }),
  z.strictObject({ mode: z.literal("emails"), allow: accessAllowSchema }),
]);

export const accessResponseSchema = z.object({
  slug: z.string(),
  mode: accessModeSchema,
  allow: z
    .array(z.string())
    .optional()
    .describe("With mode emails: the allow list as stored (lower case, each entry once)."),
});
export type AccessResponse = z.infer<typeof accessResponseSchema>;

export const viewersResponseSchema = z.object({
  viewers: z
    .array(
      z.object({
        email: z.string().describe("The address whose sign-in link was opened (lower case)."),
        first_seen: isoDate.describe("When its first sign-in link was opened."),
        last_seen: isoDate.describe("Its latest sign-in or view."),
        views: z.number().int().describe("Its page views, counted as the drop's stats count views."),
      }),
    )
    .describe(`Last seen first; a viewer not seen for ${VIEWERS_KEPT_DAYS} days is forgotten.`),
});
export type ViewersResponse = z.infer<typeof viewersResponseSchema>;

export const shareLinkBodySchema = z.strictObject({
  expires_in_hours: z
    .number()
    .int()
    .min(1)
    .max(SHARE_LINK_MAX_HOURS)
    .describe(`How long the link works: a whole number of hours, 1 to ${SHARE_LINK_MAX_HOURS}.`),
});
export const shareLinkCreatedSchema = z.object({
  id: z.string().describe("The link's id, for DELETE /drops/{slug}/share-links/{id}."),
  url: z
    .url()
    .describe("The link: a URL on the drop's host that sets the access cookie for whoever opens it. Shown once."),
  expires_at: isoDate,
});
export type ShareLinkCreated = z.infer<typeof shareLinkCreatedSchema>;
export const shareLinkListSchema = z.object({
  share_links: z
    .array(z.object({ id: z.string(), expires_at: isoDate, created_at: isoDate }))
    .describe("The links that still work (not revoked, not expired), newest first."),
});
export type ShareLinkList = z.infer<typeof shareLinkListSchema>;

export const siteRulesSchema = z
  .object({
    redirects: z.array(
      z.object({
        line: z.int().min(1).describe("Line of _redirects."),
        from: z.string(),
        to: z.string(),
        status: z.union(REDIRECT_STATUSES.map((n) => z.literal(n))),
        force: z.boolean().describe("Written with !: applies even when a file answers the path."),
      }),
    ),
    headers: z.array(
      z.object({
        line: z.int().min(1).describe("Line of the path in _headers."),
        path: z.string(),
        headers: z.array(z.object({ name: z.string(), value: z.string() })),
      }),
    ),
  })
  .describe("The site rules the drop serves with, parsed from its _redirects and _headers at deploy, in file order.");

export const dropDetailSchema = dropSchema.extend({
  access: accessModeSchema.describe(
    "Who may see the drop's files: public, password (visitors unlock it with its password), or members (logged-in members of the owning team).",
  ),
  plan: planSchema.describe("The owning account's plan."),
  total_bytes: z.int().min(0),
  files: z
    .array(z.object({ path: z.string(), size: z.int().min(0), content_type: z.string() }))
    .describe("By path; at most 1000."),
  files_truncated: z.boolean().describe("true when the drop has more files than listed (see file_count)."),
  redirect_rules: z.int().min(0).describe("Rules of the drop's _redirects (0 without one)."),
  header_rules: z.int().min(0).describe("Path blocks of the drop's _headers (0 without one)."),
  rules: siteRulesSchema,
  live_version: z.int().min(1).describe("The version served; files, file_count and total_bytes are that version's."),
  version_url: versionUrlSchema.describe("The live version's own address (its preview host); null past 63 characters."),
});
export type DropDetail = z.infer<typeof dropDetailSchema>;

/** The largest offset a list accepts (PostgreSQL's int4 maximum; no account holds that many drops). */
export const MAX_OFFSET = 2_147_483_647;
/** The largest page of a list, and the page size when none is asked for. */
export const LIST_LIMIT_MAX = 500;
export const LIST_LIMIT_DEFAULT = 100;

export const listQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .default(LIST_LIMIT_DEFAULT)
    .describe(`Page size, 1 to ${LIST_LIMIT_MAX}.`),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0).describe(`Drops to skip, 0 to ${MAX_OFFSET}.`),
});

/** The dashboard's ?page= (pages of `pageSize` drops): a page whose offset a list accepts; anything else is page 1. */
export const dashboardPageSchema = (pageSize: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(Math.floor(MAX_OFFSET / pageSize))
    .catch(1);

export const listDropsResponseSchema = z.object({
  total: z.int().describe("All drops of the account, not only this page."),
  drops: z
    .array(
      dropSchema.extend({
        views_7d: z
          .int()
          .describe("Views of the drop today and the 6 days before (UTC), as GET /drops/{slug}/stats counts them."),
      }),
    )
    .describe("Newest first."),
});
export type ListDropsResponse = z.infer<typeof listDropsResponseSchema>;

export const deleteDropResponseSchema = z.object({ deleted: z.string().describe("Slug of the deleted drop.") });

export const ifMatchHeaderSchema = z
  .string()
  .regex(/^\s*"[1-9][0-9]{0,9}"\s*$/)
  .describe(
    'The live version the write expects, in double quotes (e.g. "3"); when another version is live: 409 conflict with live_version. Named deploys and appends only.',
  );

export const idempotencyKeyHeaderSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/)
  .describe(
    "1 to 255 printable characters. The same request with the same key from the same caller within 24 hours replays the first answer (Idempotent-Replayed: true); another request with it, or a retry while the first runs, is 409 conflict.",
  );

export const versionKinds = ["deploy", "replace", "append"] as const;

export const dropVersionSchema = z.object({
  version: z.int().min(1),
  created_at: isoDate,
  file_count: z.int().min(0),
  total_bytes: z.int().min(0),
  kind: z
    .enum(versionKinds)
    .describe("The write that made the version: the first deploy, a named replace, or an append."),
  live: z.boolean().describe("true for the version the drop serves."),
  version_url: versionUrlSchema,
});

export const versionsListSchema = z.object({
  total: z.int().describe("Retained versions of the drop, not only this page."),
  live_version: z.int().min(1),
  versions: z.array(dropVersionSchema).describe("Newest first."),
});
export type VersionsList = z.infer<typeof versionsListSchema>;

export const rollbackBodySchema = z.object({
  version: z.int().describe("A retained version of the drop (older or newer than the live one)."),
});

export const rollbackResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  live_version: z.int().min(1),
});
export type RollbackResponse = z.infer<typeof rollbackResponseSchema>;

export const aliasBodySchema = z.object({
  version: z.int().describe("A retained version of the drop the alias points at (created or moved)."),
});

export const aliasSchema = z.object({
  name: z.string().describe("1 to 16 lowercase letters, digits and single hyphens; not v and digits only."),
  version: z.int().min(1),
  url: z
    .url()
    .nullable()
    .describe("https://<slug>---<name>.<serve domain>/: serves the aliased version, noindex; null past 63 characters."),
});
export type AliasResponse = z.infer<typeof aliasSchema>;

export const aliasListSchema = z.object({
  aliases: z.array(aliasSchema.extend({ updated_at: isoDate })).describe("By name."),
});
export type AliasList = z.infer<typeof aliasListSchema>;
