"use client";

import Link from "next/link";
import { useActionState } from "react";
import type { DomainInfo } from "@/lib/schemas";
import { CopyButton } from "../_components/CodeBlock";
import { domainsAction, type DomainsFormState } from "./actions";
import { Button } from "../_components/ui";
import { Status } from "./status";
import { Table } from "./table";

// The drop page's custom domains: the hostnames that serve this drop, each with its status and
// the two DNS records to publish (each value with a copy button), a "Check DNS" and a "Remove"
// button; and, on the Team plan, a form to add one. Plain forms posting to one server action,
// so they work before (or without) the page's script; the status line announces each result.
export function DomainsPanel({
  slug,
  domains,
  allowed,
  max,
}: {
  slug: string;
  domains: DomainInfo[];
  allowed: boolean;
  max: number;
}) {
  const [state, formAction, pending] = useActionState<DomainsFormState, FormData>(domainsAction, {
    domains,
    message: "",
    failure: null,
    round: 0,
  });
  return (
    <section className="card" aria-labelledby="domains-title">
      <h2 id="domains-title">Custom domains</h2>
      {!allowed ? (
        <p className="muted">
          Serve this drop at your own hostname (e.g. docs.example.com): custom domains are part of the{" "}
          <Link href="/#pricing">Team plan</Link>.
        </p>
      ) : (
        <p className="muted">
          Serve this drop at your own hostname, up to {max} per account. Add it, publish its two DNS records at your DNS
          provider, then check DNS.
        </p>
      )}
      {state.domains.length > 0 && (
        <ul className="domains-list" data-testid="domains-list">
          {state.domains.map((d) => (
            <li key={d.hostname} className="domain-item">
              <h3>
                {d.hostname}{" "}
                <span
                  className={`badge ${d.status === "active" ? "live" : "expired"}`}
                  data-testid={`domain-status-${d.hostname}`}
                >
                  {d.status === "active" ? "Active" : "Pending"}
                </span>
              </h3>
              <Table
                className="files-table"
                columns={["Type", "Name", "Value"]}
                caption={`DNS records for ${d.hostname}`}
              >
                {[
                  { type: d.verification.type, name: d.verification.name, value: d.verification.value },
                  { type: d.target.type, name: d.hostname, value: d.target.value },
                ].map((r) => (
                  <tr key={r.type}>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.name}</code>{" "}
                      <CopyButton text={r.name} label={`Copy the ${r.type} record name of ${d.hostname}`} />
                    </td>
                    <td>
                      <code>{r.value}</code>{" "}
                      <CopyButton text={r.value} label={`Copy the ${r.type} record value of ${d.hostname}`} />
                    </td>
                  </tr>
                ))}
              </Table>
              <form action={formAction} className="domain-actions">
                <input type="hidden" name="slug" value={slug} />
                <input type="hidden" name="hostname" value={d.hostname} />
                <button
                  type="submit"
                  name="intent"
                  value="verify"
                  disabled={pending}
                  aria-label={`Check DNS of ${d.hostname}`}
                >
                  Check DNS
                </button>{" "}
                <button
                  type="submit"
                  name="intent"
                  value="remove"
                  className="secondary"
                  disabled={pending}
                  aria-label={`Remove ${d.hostname}`}
                >
                  Remove
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      {allowed && (
        <form action={formAction} className="domain-add">
          <input type="hidden" name="slug" value={slug} />
          <input type="hidden" name="intent" value="add" />
          <label htmlFor="domain-hostname">Hostname</label>
          <input
            id="domain-hostname"
            name="hostname"
            type="text"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="docs.example.com"
            maxLength={253}
            required
          />
          <Button type="submit" disabled={pending}>
            {pending ? "Working…" : "Add domain"}
          </Button>
        </form>
      )}
      <Status shown testId="domains-status" text={state.message} failure={state.failure} />
    </section>
  );
}
