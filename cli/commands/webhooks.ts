// dropsite webhooks: an account's webhooks and their deliveries (docs/webhooks.md).
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../lib/patterns";
import { answer, apiClient } from "../core/api";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { print, table } from "../core/output";

const WEBHOOKS_USAGE = "dropsite webhooks add <url> [--events E,E] | list | rm <id> | deliveries <id>";

async function cmdWebhooks(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, arg] = args;
  const usage = () => usageError(WEBHOOKS_USAGE);
  const client = apiClient(target);
  if (sub === "add") {
    if (args.length !== 2 || arg === undefined) throw usage();
    // The names go as given: the server judges them (an unknown one: 400 invalid_request naming it).
    const events = flags.events
      ?.split(",")
      .map((e) => e.trim())
      .filter(Boolean) as WebhookEventType[] | undefined;
    const res = await answer(client.POST("/webhooks", { body: { url: arg, ...(events ? { events } : {}) } }));
    if (flags.json) return print(res);
    process.stdout.write(
      `Added webhook ${res.id}: ${res.url}\nEvents: ${res.events.join(", ")}\nSigning secret (shown once; verify deliveries with it): ${res.secret}\n`,
    );
    return;
  }
  if (sub === "list") {
    if (args.length !== 1) throw usage();
    const res = await answer(client.GET("/webhooks"));
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
    const res = await answer(client.DELETE("/webhooks/{id}", { params: { path: { id: arg } } }));
    if (flags.json) return print(res);
    process.stdout.write(`Removed webhook ${res.deleted}\n`);
    return;
  }
  if (sub === "deliveries") {
    if (args.length !== 2 || arg === undefined) throw usage();
    const res = await answer(client.GET("/webhooks/{id}/deliveries", { params: { path: { id: arg } } }));
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
