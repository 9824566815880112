import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../patterns";

// --- Webhooks ---

export const webhookEventSchema = z.enum(WEBHOOK_EVENT_TYPES);

export const webhookBodySchema = z.object({
  url: z
    .string()
    .max(2048)
    .describe(
      "Where events are POSTed: https, resolving to public addresses only (unless the server sets WEBHOOKS_ALLOW_PRIVATE=1).",
    ),
  events: z
    .array(webhookEventSchema)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length * 2)
    .optional()
    .describe(`The event types to receive; omitted means all ${WEBHOOK_EVENT_TYPES.length}.`),
});

export const webhookInfoSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(webhookEventSchema),
});

export const webhookCreatedSchema = webhookInfoSchema.extend({
  secret: z
    .string()
    .describe("whsec_…: the signing secret of the Standard Webhooks scheme, shown only in this answer."),
});

export const webhooksListSchema = z.object({ webhooks: z.array(webhookInfoSchema) });

export const webhookDeletedSchema = z.object({ deleted: z.string() });

export const webhookDeliveriesSchema = z.object({
  deliveries: z.array(
    z.object({
      event_id: z.string().describe("The event's id: the webhook-id header, the same on every retry."),
      type: webhookEventSchema,
      status_code: z.int().nullable().describe("The receiver's HTTP status; null when it gave none."),
      error: z
        .string()
        .nullable()
        .describe("Why the attempt failed (refused address, timeout, network, a non-2xx status); null on success."),
      attempt: z.int().describe("1 for the first attempt."),
      created_at: z.string().describe("When the attempt was made (RFC 3339)."),
    }),
  ),
});

export const deliveryPassSchema = z.object({
  attempted: z.int().describe("Delivery attempts made by this pass."),
  delivered: z.int().describe("Of those, the ones a receiver accepted (2xx)."),
});

/** The body POSTed to a webhook. */
export const webhookPayloadSchema = z.object({
  id: z.string(),
  type: webhookEventSchema,
  created_at: z.string(),
  data: z
    .object({
      slug: z.string().optional(),
      url: z.string().optional(),
      version: z.int().optional(),
      promoted: z
        .boolean()
        .optional()
        .describe("drop.deployed, drop.replaced, drop.appended: false when the version was staged, not made live."),
      version_url: z.string().nullable().optional().describe("The version's own address (its preview host)."),
      actor: z
        .object({ id: z.string(), email: z.string().nullable() })
        .optional()
        .describe("For a team's drops: the person who made the change acting as the team."),
    })
    .catchall(z.unknown()),
});
