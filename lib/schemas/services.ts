import { z } from "zod";
import { API_KEY_PATTERN, SHA256_HEX_PATTERN, VANITY_PATTERN } from "../patterns";
import { DEVICE_CLAIMS_MAX, DOMAIN_TXT_GRACE_SECONDS } from "../plans";
import { claimBodySchema } from "./account";
import { isoDate, planSchema } from "./common";

// The service's other routes: device authorisation, billing and vanity subdomains, MCP's
// JSON-RPC, the cleanup cron, health.

// --- Device authorisation (RFC 8628) ---

export const deviceAuthorizeBodySchema = z.object({
  claims: z
    .array(claimBodySchema)
    .max(DEVICE_CLAIMS_MAX)
    .optional()
    .describe(
      `Anonymous drops this agent deployed, by slug and claim_token (at most ${DEVICE_CLAIMS_MAX}): the approval page shows them, and approving moves them into the approving account with the rules of POST /claim; each one's outcome is reported, none fails the approval.`,
    ),
});

const deviceClaimOutcomeSchema = z.object({
  slug: z.string(),
  claimed: z.boolean(),
  url: z.url().optional().describe("When claimed."),
  code: z
    .string()
    .optional()
    .describe("When not claimed: the error code POST /claim would answer (not_found, gone, subscription_required, …)."),
  error: z.string().optional(),
});

export const deviceTokenBodySchema = z.object({
  device_code: z.string().min(1).max(200).describe("The device_code of POST /device/authorize."),
});

export const deviceAuthorizationSchema = z.object({
  device_code: z.string().describe("Secret: keep it for device_token; never show it to the user."),
  user_code: z.string().describe("Short code the user checks on the verification page."),
  verification_uri: z.url(),
  verification_uri_complete: z
    .url()
    .describe("The verification page with the code filled in: give this link to the user."),
  expires_in: z.int().min(1).describe("Seconds until the request expires."),
  interval: z.int().min(1).describe("Seconds to wait between device_token calls."),
});

export const deviceTokenSchema = z.object({
  access_token: z.string().describe("The new sp_ API key (same as api_key)."),
  token_type: z.literal("Bearer"),
  api_key: z.string().regex(API_KEY_PATTERN).describe("Shown once; send it as Authorization: Bearer."),
  key_id: z.string().regex(SHA256_HEX_PATTERN),
  account_id: z.string(),
  plan: z.enum(["free", "pro", "team"]),
  claims: z
    .array(deviceClaimOutcomeSchema)
    .describe("The anonymous drops asked for in the authorisation, and whether each moved into the account."),
});

// --- Billing and vanity subdomains ---

export const checkoutBodySchema = z.object({
  plan: z.enum(["pro", "team"]).default("pro").describe("The plan to subscribe to."),
});

export const checkoutResponseSchema = z.object({
  url: z
    .url()
    .describe("Where to send the user: the payment provider's checkout page, or the portal when already subscribed."),
  alreadySubscribed: z.boolean(),
});

export const portalResponseSchema = z.object({ url: z.url() });

export const entitlementsSchema = z.object({
  accountId: z.string(),
  plan: planSchema,
  activeSubscription: z.boolean(),
  currentPeriodEnd: isoDate.nullable().optional(),
  cancelAt: isoDate.nullable().optional(),
  portalAvailable: z.boolean().optional(),
});

export const webhookResponseSchema = z
  .looseObject({})
  .describe("Acknowledgement of a verified payment-provider event.");

export const vanityBodySchema = z.object({
  sub: z
    .string()
    .regex(VANITY_PATTERN)
    .regex(/^(?!.*--)/, "no double hyphens")
    .describe("3 to 20 lowercase letters, digits and single hyphens; not starting or ending with a hyphen."),
});

export const vanityResponseSchema = z.object({ sub: z.string().nullable() });

export const vanityClaimResponseSchema = z.object({
  sub: z.string(),
  serve_base: z.string().describe("Shape https://<sub>--<name>.<serve_domain>/"),
});

// --- MCP (stateless JSON-RPC 2.0) ---

export const jsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).optional().describe("Absent for notifications."),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const jsonRpcResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).nullable(),
  result: z.unknown().optional(),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

// Types of the billing and vanity schemas above

export type CheckoutResponse = z.infer<typeof checkoutResponseSchema>;
export type PortalResponse = z.infer<typeof portalResponseSchema>;
export type Entitlements = z.infer<typeof entitlementsSchema>;
export type VanityResponse = z.infer<typeof vanityResponseSchema>;
export type VanityClaimResponse = z.infer<typeof vanityClaimResponseSchema>;

// Results of the MCP tools reuse the REST response schemas: deploy_html and deploy_files →
// deployResponseSchema, list_drops → listDropsResponseSchema, delete_drop →
// deleteDropResponseSchema, get_limits → limitsResponseSchema.

export const healthResponseSchema = z.object({
  status: z.enum(["ok", "degraded"]).describe("ok when every part answers; degraded (503) otherwise."),
  version: z.string().describe("The server's version."),
  database: z.enum(["ok", "unavailable"]),
  storage: z.enum(["ok", "unavailable"]),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;

// --- Cron (GET /cron/cleanup) ---

export const cleanupResponseSchema = z.object({
  purged: z.int(),
  slugs: z.array(z.string()),
  versions_pruned: z.int().describe("Versions removed beyond each plan's versionsKept."),
  domains_pending: z
    .array(z.string())
    .describe(
      `Custom domains sent back to pending: their TXT record was gone for ${DOMAIN_TXT_GRACE_SECONDS / 86_400} days.`,
    ),
});
