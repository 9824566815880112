import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { accounts } from "./drops";

// Webhooks: the receivers, the outbox of events, what each webhook still owes and the log of attempts.

/**
 * Webhooks (docs/webhooks.md): an account's receivers. The signing secret is kept encrypted
 * (AES-256-GCM under a key derived from NEXTAUTH_SECRET, lib/webhooks/secret.ts): deliveries
 * must sign with it, so a one-way hash would not do.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    /** wh_ and 24 base32 characters. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The event types it receives (lib/patterns.ts WEBHOOK_EVENTS). */
    events: jsonb("events").$type<string[]>().notNull(),
    /** The whsec_ secret, encrypted: v1.<iv>.<tag>.<ciphertext> (base64url). */
    secretSealed: text("secret_sealed").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhooks_account_idx").on(t.accountId)],
);
export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The outbox: one row per change an account is told about, written in the change's own
 * transaction (lib/db/events.ts recordEvent). Its id is the webhook-id of every delivery.
 */
export const events = pgTable(
  "events",
  {
    /** msg_ and 24 base32 characters. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** The body's data, without url (added at delivery from the serve domain). */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    /** The W3C traceparent of the request that recorded it, when traced: its deliveries' spans link to it. */
    traceParent: text("trace_parent"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("events_account_created_idx").on(t.accountId, t.createdAt)],
);
export type EventRow = typeof events.$inferSelect;

/**
 * What each webhook still owes: one row per event and webhook subscribed when the event was
 * recorded. A worker claims due rows (FOR UPDATE SKIP LOCKED), moving next_attempt_at past the
 * attempt's timeout so no other worker takes it meanwhile, then records the outcome.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    /** pending (due at next_attempt_at) → delivered | failed (retries exhausted). */
    state: text("state").$type<"pending" | "delivered" | "failed">().notNull().default("pending"),
    /** Attempts started so far. */
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.webhookId, t.eventId] }),
    index("webhook_deliveries_due_idx").on(t.state, t.nextAttemptAt),
  ],
);
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The delivery log: one row per attempt (GET /webhooks/{id}/deliveries). */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    attempt: integer("attempt").notNull(),
    /** The receiver's HTTP status; null when there was none (refused address, timeout, network). */
    statusCode: integer("status_code"),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_attempts_webhook_created_idx").on(t.webhookId, t.createdAt)],
);
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
