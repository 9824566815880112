// dropsite webhooks: an account's webhooks and their deliveries (docs/webhooks.md).
import type { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../../lib/patterns";
import type {
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhookDeliveriesSchema,
  webhooksListSchema,
} from "../../lib/schemas";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { apiCall } from "../core/http";
import { print, table } from "../core/output";

type WebhookCreated = z.infer<typeof webhookCreatedSchema>;
type WebhookList = z.infer<typeof webhooksListSchema>;
type WebhookDeleted = z.infer<typeof webhookDeletedSchema>;
type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;

const WEBHOOKS_USAGE = "dropsite webhooks add <url> [--events E,E] | list | rm <id> | deliveries <id>";

async function cmdWebhooks(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, arg] = args;
  const usage = () => usageError(WEBHOOKS_USAGE);
  if (sub === "add") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const events = flags.events
      ?.split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    const body = Buffer.from(JSON.stringify({ url: arg, ...(events ? { events } : {}) }));
    const res = await apiCall<WebhookCreated>(target.api, target.key, "POST", "/webhooks", {
      body,
      headers: { "content-type": "application/json" },
    });
    if (flags.json) return print(res);
    process.stdout.write(
      `Added webhook ${res.id}: ${res.url}\nEvents: ${res.events.join(", ")}\nSigning secret (shown once; verify deliveries with it): ${res.secret}\n`,
    );
    return;
  }
  if (sub === "list") {
    if (args.length !== 1) throw usage();
    const res = await apiCall<WebhookList>(target.api, target.key, "GET", "/webhooks");
    if (flags.json) return print(res);
    if (res.webhooks.length === 0) return void process.stdout.write("No webhooks.\n");
    const all = (e: string[]) => (e.length === WEBHOOK_EVENT_TYPES.length ? "all" : e.join(","));
    table(
      ["ID", "EVENTS", "URL"],
      res.webhooks.map((w) => [w.id, all(w.events), w.url]),
    );
    return;
  }
  if (sub === "rm") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const res = await apiCall<WebhookDeleted>(target.api, target.key, "DELETE", `/webhooks/${encodeURIComponent(arg)}`);
    if (flags.json) return print(res);
    process.stdout.write(`Removed webhook ${res.deleted}\n`);
    return;
  }
  if (sub === "deliveries") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const res = await apiCall<WebhookDeliveries>(
      target.api,
      target.key,
      "GET",
      `/webhooks/${encodeURIComponent(arg)}/deliveries`,
    );
    if (flags.json) return print(res);
    if (res.deliveries.length === 0) return void process.stdout.write("No deliveries yet.\n");
    table(
      ["TIME", "EVENT", "TYPE", "ATTEMPT", "RESULT"],
      res.deliveries.map((d) => [
        d.created_at,
        d.event_id,
        d.type,
        String(d.attempt),
        d.error ?? String(d.status_code),
      ]),
    );
    return;
  }
  throw usage();
}

export const webhooks: Command = {
  usage: WEBHOOKS_USAGE,
  about: `Your account's webhooks: signed POSTs of every change (docs/webhooks.md).
  add <url>        add one (https, public address); prints its signing secret once
  --events E,E     with add: only these events (default all: ${WEBHOOK_EVENT_TYPES.join(", ")})
  list             your webhooks
  rm <id>          remove one
  deliveries <id>  its latest delivery attempts, newest first`,
  run: cmdWebhooks,
};
