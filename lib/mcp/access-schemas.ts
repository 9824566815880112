import { z } from "zod";
import { ACCESS_EMAILS_MAX, ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS } from "../plans";
import { accessModeSchema, accessPasswordSchema, shareLinkBodySchema } from "../schemas";
import { idempotencyKey, slug } from "./schemas";

// The arguments of the MCP tools that decide who sees a drop: set_access (public, password,
// members, emails) and create_share_link. Beside lib/mcp/schemas.ts, whose helpers they use.

export const setAccessArgs = z
  .strictObject({
    slug,
    mode: accessModeSchema,
    password: accessPasswordSchema
      .optional()
      .describe(
        `Required with mode "password": ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters. Stored only as a slow salted hash; never returned.`,
      ),
    allow: z
      .array(z.string().max(300))
      .min(1)
      .max(ACCESS_EMAILS_MAX)
      .optional()
      .describe(
        `Required with mode "emails": 1 to ${ACCESS_EMAILS_MAX} addresses (ana@example.org) and @domains (@client.com, that domain exactly), compared case-insensitively.`,
      ),
    idempotency_key: idempotencyKey,
  })
  .meta({
    examples: [
      { slug: "k3j9x2ab", mode: "password", password: "a long passphrase" },
      { slug: "k3j9x2ab", mode: "emails", allow: ["ana@example.org", "@client.com"] },
      { slug: "k3j9x2ab", mode: "members" },
      { slug: "k3j9x2ab", mode: "public" },
    ],
  });

export const createShareLinkArgs = z
  .strictObject({
    slug,
    expires_in_hours: shareLinkBodySchema.shape.expires_in_hours,
    idempotency_key: idempotencyKey,
  })
  .meta({ examples: [{ slug: "k3j9x2ab", expires_in_hours: 48 }] });
