"use client";

import { useState } from "react";
import { Field, InlineForm } from "../_components/ui";
import { addWebhookAction, removeWebhookAction } from "./actions";
import { SecretNotice } from "./secret-notice";
import { Status } from "./status";
import { useAction } from "./use-action";
import { WebhookDeliveries, type DeliveryView } from "./webhook-deliveries";

interface WebhookView {
  id: string;
  url: string;
  events: string[];
  deliveries: DeliveryView[];
}

/** The account's webhooks: add one (its secret shown once), each one's latest attempts, remove. */
export function WebhooksPanel({
  webhooks,
  eventTypes,
  recent,
}: {
  webhooks: WebhookView[];
  eventTypes: readonly string[];
  recent: number;
}) {
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<string[]>([...eventTypes]);
  const [secret, setSecret] = useState<string | null>(null);
  const { pending, failure, said, run, submit } = useAction();
  const add = submit(() => addWebhookAction(url, chosen.length === eventTypes.length ? undefined : chosen), {
    said: () => "Webhook added: copy its signing secret now, it is shown once.",
    onOk: (w) => {
      setSecret(w.secret);
      setUrl("");
    },
  });
  return (
    <>
      <InlineForm
        onSubmit={add}
        submit="Add webhook"
        pending={pending}
        after={
          <details>
            <summary>Events ({chosen.length === eventTypes.length ? "all" : chosen.length})</summary>
            <fieldset>
              <legend>Send these events</legend>
              {eventTypes.map((t) => (
                <label key={t} style={{ display: "block" }}>
                  <input
                    type="checkbox"
                    checked={chosen.includes(t)}
                    onChange={(e) =>
                      setChosen(
                        e.target.checked
                          ? eventTypes.filter((x) => x === t || chosen.includes(x))
                          : chosen.filter((x) => x !== t),
                      )
                    }
                  />{" "}
                  <code>{t}</code>
                </label>
              ))}
            </fieldset>
          </details>
        }
      >
        <Field
          id="webhook-url"
          kind="url"
          label="Receiver URL"
          required
          value={url}
          maxLength={2048}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://ci.example.com/dropsite"
        />
      </InlineForm>
      <Status text={said} failure={failure} testId="webhooks-said" />
      {secret && <SecretNotice secret={secret} noun="signing secret" copy="Copy secret" testId="new-webhook" />}
      {webhooks.length === 0 ? (
        <p className="muted">No webhooks.</p>
      ) : (
        webhooks.map((w) => (
          <article key={w.id} className="webhook" data-testid={`webhook-${w.id}`} aria-labelledby={`${w.id}-title`}>
            <h3 id={`${w.id}-title`} className="row" style={{ justifyContent: "space-between" }}>
              <span style={{ wordBreak: "break-all" }}>{w.url}</span>
              <button
                type="button"
                className="button small secondary"
                aria-label={`Remove webhook ${w.url}`}
                disabled={pending}
                onClick={() => run(() => removeWebhookAction(w.id), { said: () => `Webhook ${w.url} removed.` })}
              >
                Remove
              </button>
            </h3>
            <p className="muted">
              <code>{w.id}</code> · {w.events.length === eventTypes.length ? "all events" : w.events.join(", ")}
            </p>
            <WebhookDeliveries url={w.url} deliveries={w.deliveries} recent={recent} />
          </article>
        ))
      )}
    </>
  );
}
