import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { prefixedId } from "../ids";
import { withDb } from "../db/errors";
import {
  deleteAccountWebhook,
  findAccountWebhook,
  insertWebhookCapped,
  listAccountWebhooks,
  listWebhookAttempts,
} from "../db/webhooks";
import { ApiError } from "../errors";
import { readJson } from "../http";
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../patterns";
import { limits, WEBHOOK_LOG_SHOWN } from "../plans";
import { webhookBodySchema } from "../schemas";
import { resolveTarget, urlProblem } from "./address";
import { newWebhookSecret, sealSecret } from "./secret";

// POST/GET/DELETE /webhooks and GET /webhooks/{id}/deliveries (docs/webhooks.md). A webhook is
// its account's only: any other account's id answers 404, as an unknown one does.

const WEBHOOK_ID_PATTERN = /^wh_[a-z2-7]{24}$/;

const notFound = () => new ApiError("not_found", "No such webhook in this account.", { docs: "webhooks" });

function info(row: { id: string; url: string; events: string[] }) {
  return { id: row.id, url: row.url, events: row.events as WebhookEventType[] };
}

/** Refuses a URL a webhook may not have: a malformed one, or (unless allowed) not https or not public. */
export async function checkWebhookUrl(ctx: AppContext, raw: string): Promise<URL> {
  const allowPrivate = ctx.env.WEBHOOKS_ALLOW_PRIVATE;
  const problem = urlProblem(raw, allowPrivate);
  const refusedUrl = (why: string) =>
    new ApiError("invalid_request", `This webhook URL is refused: ${why}.`, {
      hint: allowPrivate
        ? "Give an absolute http(s) URL."
        : "Give an https URL whose host resolves to public addresses only.",
      docs: "webhooks",
      details: { field: "url" },
    });
  if (problem) throw refusedUrl(problem);
  const url = new URL(raw);
  try {
    await resolveTarget(url, allowPrivate);
  } catch (err) {
    throw refusedUrl(err instanceof Error ? err.message : "its host cannot be checked");
  }
  return url;
}

/** The JSON body of POST /webhooks, unparsed (createWebhook checks it). */
export function readWebhookBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
}

// POST /webhooks
export async function createWebhook(ctx: AppContext, account: AccountRow, input: unknown) {
  const parsed = webhookBodySchema.safeParse(input);
  if (!parsed.success) {
    throw ApiError.fromZod(parsed.error, "The body", {
      hint: `url is required; events, if given, lists names among: ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
      docs: "webhooks",
    });
  }
  const url = await checkWebhookUrl(ctx, parsed.data.url);
  const events = parsed.data.events
    ? WEBHOOK_EVENT_TYPES.filter((t) => parsed.data.events?.includes(t))
    : [...WEBHOOK_EVENT_TYPES];
  const max = limits[account.plan].maxWebhooks;
  const id = prefixedId("wh");
  const secret = newWebhookSecret();
  const row = {
    id,
    accountId: account.id,
    url: url.href,
    events,
    secretSealed: sealSecret(secret, id, ctx.env),
    createdAt: new Date(ctx.now()),
  };
  if (!(await withDb(() => insertWebhookCapped(ctx.db, row, max)))) {
    throw new ApiError("invalid_request", `This account already has ${max} webhooks.`, {
      hint: "Remove a webhook you no longer use, or upgrade for more.",
      docs: "webhooks",
      upgrade: account.plan !== "team",
      details: { limit: "max_webhooks", allowed: max, plan: account.plan },
    });
  }
  return { ...info(row), secret };
}

// GET /webhooks
export async function listWebhooks(ctx: AppContext, account: AccountRow) {
  const rows = await withDb(() => listAccountWebhooks(ctx.db, account.id));
  return { webhooks: rows.map(info) };
}

async function ownedWebhook(ctx: AppContext, account: AccountRow, id: unknown) {
  if (typeof id !== "string" || !WEBHOOK_ID_PATTERN.test(id)) throw notFound();
  const row = await withDb(() => findAccountWebhook(ctx.db, account.id, id));
  if (!row) throw notFound();
  return row;
}

// DELETE /webhooks/{id}
export async function removeWebhook(ctx: AppContext, account: AccountRow, id: unknown) {
  const row = await ownedWebhook(ctx, account, id);
  if (!(await withDb(() => deleteAccountWebhook(ctx.db, account.id, row.id)))) throw notFound();
  return { deleted: row.id };
}

// GET /webhooks/{id}/deliveries
export async function webhookDeliveries(ctx: AppContext, account: AccountRow, id: unknown) {
  const row = await ownedWebhook(ctx, account, id);
  const attempts = await withDb(() => listWebhookAttempts(ctx.db, row.id, WEBHOOK_LOG_SHOWN));
  return {
    deliveries: attempts.map((a) => ({
      event_id: a.eventId,
      type: a.type as WebhookEventType,
      status_code: a.statusCode,
      error: a.error,
      attempt: a.attempt,
      created_at: a.createdAt.toISOString(),
    })),
  };
}

/** The account's webhooks, each with its newest `recent` attempts (the dashboard). */
export async function webhooksWithRecent(ctx: AppContext, account: AccountRow, recent: number) {
  const rows = await withDb(() => listAccountWebhooks(ctx.db, account.id));
  return Promise.all(
    rows.map(async (w) => ({
      ...info(w),
      deliveries: (await withDb(() => listWebhookAttempts(ctx.db, w.id, recent))).map((a) => ({
        event_id: a.eventId,
        type: a.type,
        status_code: a.statusCode,
        error: a.error,
        attempt: a.attempt,
        created_at: a.createdAt.toISOString(),
      })),
    })),
  );
}
