import { z } from "zod";
import { INPUT_LIMITS, isPlainText, utf8Bytes } from "../input";
import { TEAM_INVITE_CODE_PATTERN } from "../patterns";
import { isoDate, planSchema } from "./common";
import { LIST_LIMIT_MAX, MAX_OFFSET } from "./drops";
import { vanityBodySchema } from "./services";

// --- Teams: accounts people share (DESIGN "Teams") ---

/** The four roles of a team, weakest first (lib/teams/roles.ts says what each may do). */
export const TEAM_ROLES = ["viewer", "member", "admin", "owner"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
export const teamRoleSchema = z.enum(TEAM_ROLES);

/** A team's display name: 1 to 100 bytes of text without control characters. */
const TEAM_NAME_BYTES = 100;

export const teamBodySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .refine(
      (v) => isPlainText(v) && utf8Bytes(v) <= TEAM_NAME_BYTES,
      `at most ${TEAM_NAME_BYTES} bytes of text without control characters`,
    )
    .describe(`The team's name as people read it (1 to ${TEAM_NAME_BYTES} bytes).`),
  slug: vanityBodySchema.shape.sub.describe(
    "The team's slug, as a vanity sub: 3 to 20 lowercase letters, digits and single hyphens. Unique, shared with vanity subs and the reserved labels.",
  ),
});

export const teamCreatedSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  role: z.literal("owner"),
  plan: planSchema.describe("The team's plan: its billing owner's."),
  created_at: isoDate,
});

export const teamListSchema = z.object({
  teams: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string(), role: teamRoleSchema })),
});

export const teamMembersSchema = z.object({
  members: z.array(
    z.object({ account_id: z.string(), email: z.string().nullable(), role: teamRoleSchema, joined_at: isoDate }),
  ),
});

export const memberRoleBodySchema = z.object({ role: teamRoleSchema });

export const memberSchema = z.object({ account_id: z.string(), role: teamRoleSchema });

export const memberRemovedSchema = z.object({ removed: z.string().describe("The account id that left the team.") });

export const inviteBodySchema = z.object({
  role: teamRoleSchema.describe("The role the invited person joins with; only owners invite owners."),
  email: z
    .email()
    .max(INPUT_LIMITS.claimBytes)
    .optional()
    .describe("When given, only a person whose verified login email this is may join."),
});

export const inviteCreatedSchema = z.object({
  id: z.string(),
  code: z.string().regex(TEAM_INVITE_CODE_PATTERN).describe("Shown once; only a keyed hash is stored."),
  url: z.url().describe("Where a logged-in person accepts the invitation."),
  role: teamRoleSchema,
  expires_at: isoDate,
});

export const inviteListSchema = z.object({
  invites: z.array(
    z.object({
      id: z.string(),
      role: teamRoleSchema,
      email: z.string().nullable(),
      expires_at: isoDate,
      created_at: isoDate,
    }),
  ),
});

export const inviteRevokedSchema = z.object({ revoked: z.string() });

export const joinBodySchema = z.object({ code: z.string().min(1).max(200).describe("The invitation's code.") });

export const joinedSchema = z.object({ id: z.string(), slug: z.string(), name: z.string(), role: teamRoleSchema });

export const teamDeletedSchema = z.object({ deleted: z.string().describe("The slug of the deleted team.") });

export const teamAuditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(50),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0),
});

export const teamAuditSchema = z.object({
  total: z.int(),
  entries: z.array(
    z.object({
      id: z.string(),
      at: isoDate,
      actor: z.object({ id: z.string(), email: z.string().nullable() }),
      credential: z.object({ kind: z.enum(["key", "session", "oauth"]), id: z.string() }),
      action: z.string(),
      target: z.string(),
    }),
  ),
});
export type TeamAuditResponse = z.infer<typeof teamAuditSchema>;
