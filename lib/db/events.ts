import { and, eq, sql } from "drizzle-orm";
import type { WebhookEventType } from "../patterns";
import type { Db } from "./client";
import { events, webhookDeliveries, webhooks } from "./schema";
import { teamActorFor } from "../log/actor-scope";
import { prefixedId } from "../ids";
import { recordTeamChange } from "./team-audit";
import { currentTraceParent } from "../tracing";

// The outbox. recordEvent runs inside the transaction of the change it reports (commitWrite,
// the delete and claim and access statements here in lib/db, and a domain's verification), so
// a committed change always has its event and a rolled-back one never does. It also queues one
// delivery per webhook of the account subscribed to the type, due at once.

/** A transaction of the database (what Db.transaction hands its callback). */
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface NewEvent {
  /** The account told; null (a drop that belongs to nobody) records nothing. */
  accountId: string | null;
  type: WebhookEventType;
  /** The body's data without url: slug, version and what the type adds. */
  data: Record<string, unknown> & { slug?: string };
  now: Date;
}

/**
 * Who hears that an event was recorded: the webhooks' delivery right after the response, which
 * Next's entry (instrumentation.ts) sets (lib/webhooks/soon.ts). Told inside the transaction,
 * so it must only schedule work that runs after the response (by then the change committed).
 * Next bundles its entries separately (this module can exist more than once in one process,
 * as lib/context.ts says), so the listener lives on globalThis. It is told the event's id.
 */
const LISTENER = Symbol.for("dropsite.eventRecorded");
const slot = globalThis as unknown as Record<symbol, ((eventId: string) => void) | undefined>;

export function onEventRecorded(listener: ((eventId: string) => void) | undefined): void {
  slot[LISTENER] = listener;
}

/** Records one event and queues its deliveries, in the caller's transaction; its id, or null for nobody. */
export async function recordEvent(tx: Tx, e: NewEvent): Promise<string | null> {
  if (e.accountId === null) return null;
  const id = prefixedId("msg");
  slot[LISTENER]?.(id);
  // A change a person made for a team names them (data.actor) and enters the team's audit log.
  const actor = teamActorFor(e.accountId);
  const data = actor ? { ...e.data, actor: { id: actor.id, email: actor.email } } : e.data;
  await tx
    .insert(events)
    .values({ id, accountId: e.accountId, type: e.type, data, traceParent: currentTraceParent(), createdAt: e.now });
  await recordTeamChange(tx, e.accountId, e.type, e.data.slug !== undefined ? `drop:${e.data.slug}` : e.type, {
    data: e.data,
    at: e.now,
  });
  await tx.execute(
    sql`insert into ${webhookDeliveries} (webhook_id, event_id, next_attempt_at)
        select ${webhooks.id}, ${id}, ${e.now.toISOString()}::timestamptz from ${webhooks}
        where ${and(eq(webhooks.accountId, e.accountId), sql`${webhooks.events} @> ${JSON.stringify([e.type])}::jsonb`)}`,
  );
  return id;
}
