// The webhook tools: add (its signing secret shown once, sealed for a replay), list, remove.
import { limits } from "../../plans";
import { webhookCreatedSchema, webhookDeletedSchema, webhooksListSchema } from "../../schemas";
import { createWebhook, listWebhooks, removeWebhook } from "../../webhooks/manage";
import { WEBHOOK_EVENT_TYPES } from "../../patterns";
import { addWebhookArgs, listWebhooksArgs, removeWebhookArgs } from "../schemas";
import { accountCaller, READS, tool } from "./define";

export const webhookTools = [
  tool({
    name: "add_webhook",
    title: "Add a webhook",
    description:
      `Have the account's changes POSTed to a URL, signed by the Standard Webhooks scheme: ${WEBHOOK_EVENT_TYPES.join(", ")} (all of them unless events lists some). ` +
      `The url must be https and public. The result carries the signing secret (whsec_…) once: give it to the receiver's owner, it cannot be shown again. ` +
      `At most ${limits.free.maxWebhooks} webhooks on free, ${limits.pro.maxWebhooks} on pro, ${limits.team.maxWebhooks} on team. Requires a key.`,
    input: addWebhookArgs,
    output: webhookCreatedSchema,
    // A new webhook; each call adds another (with its own secret).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    sealed: "secret",
    async run(args, call) {
      const c = await accountCaller(call);
      const w = await createWebhook(call.ctx, c.account, {
        url: args.url,
        ...(args.events ? { events: args.events } : {}),
      });
      return {
        structured: w,
        text: `Webhook ${w.id} added: ${w.url} receives ${w.events.join(", ")}.\nSigning secret (shown once; verify with the standardwebhooks package): ${w.secret}`,
      };
    },
  }),
  tool({
    name: "list_webhooks",
    title: "List my webhooks",
    description:
      "List the account's webhooks: id, URL and the events each receives (never their secrets). Requires a key.",
    input: listWebhooksArgs,
    output: webhooksListSchema,
    annotations: READS,
    async run(_args, call) {
      const c = await accountCaller(call);
      const l = await listWebhooks(call.ctx, c.account);
      const lines = l.webhooks.map(
        (w) =>
          `- ${w.id}: ${w.url} (${w.events.length === WEBHOOK_EVENT_TYPES.length ? "all events" : w.events.join(", ")})`,
      );
      return {
        structured: l,
        text: [`${l.webhooks.length} webhook${l.webhooks.length === 1 ? "" : "s"}.`, ...lines].join("\n"),
      };
    },
  }),
  tool({
    name: "remove_webhook",
    title: "Remove a webhook",
    description:
      "Remove one of the account's webhooks by id: it receives nothing more, and what it was still owed is dropped. Requires a key. Other accounts' webhooks answer not_found.",
    input: removeWebhookArgs,
    output: webhookDeletedSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await removeWebhook(call.ctx, c.account, args.id);
      return { structured: r, text: `Removed webhook ${r.deleted}.` };
    },
  }),
] as const;
