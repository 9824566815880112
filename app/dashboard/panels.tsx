"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore, useTransition } from "react";
import type { ActionResult } from "@/lib/auth/actions";
import { NAME_PATTERN } from "@/lib/patterns";
import { CopyButton } from "../_components/CodeBlock";
import { DropZone, PENDING_CLAIMS_KEY, type PendingClaim } from "../_components/DropZone";
import { bytes, dateTime, dropState, relative } from "../_components/format";
import { addWebhookAction, checkoutAction, claimAction, deleteDropAction, mintKeyAction, portalAction, removeWebhookAction, revokeKeyAction, rollbackAction, vanityAction } from "./actions";

type Failure = Extract<ActionResult<unknown>, { ok: false }>;

function Problem({ failure }: { failure: Failure | null }) {
  if (!failure) return null;
  return (
    <div className="error" role="alert">
      <p>
        {failure.error} <code>{failure.code}</code>
      </p>
      {failure.hint && <p>{failure.hint}</p>}
      {failure.upgrade_url && (
        <p>
          <a href={failure.upgrade_url}>See plans</a>
        </p>
      )}
    </div>
  );
}

/**
 * A polite status line that is always on the page, so what is put into it is announced: the
 * outcome of an action whose button disappears with it (a revoked key, a deleted drop).
 */
function Said({ text, testId }: { text: string; testId?: string }) {
  return (
    <p className="visually-hidden" role="status" data-testid={testId}>
      {text}
    </p>
  );
}

export interface DropView {
  slug: string;
  url: string;
  name: string | null;
  file_count: number;
  redeploy_count: number;
  updated_at: string;
  expires_at: string | null;
}

const day = (iso: string | null) => (iso ? new Date(iso).toISOString().slice(0, 10) : "never");

/** An expiry in words, the exact date on hover. */
export function Expiry({ iso, now }: { iso: string | null; now: number }) {
  if (iso === null) return <span>never</span>;
  return (
    <time dateTime={iso} title={dateTime(iso)}>
      {dropState(iso, now) === "expired" ? (relative(iso, now) === "now" ? "expired just now" : `expired ${relative(iso, now)}`) : relative(iso, now)}
    </time>
  );
}

export function StateBadge({ expiresAt, now }: { expiresAt: string | null; now: number }) {
  return dropState(expiresAt, now) === "expired" ? (
    <span className="badge expired" data-testid="state-expired">
      Expired · offline
    </span>
  ) : (
    <span className="badge live">Live</span>
  );
}

const host = (url: string) => url.replace(/^https?:\/\//, "").replace(/\/$/, "");

export function DropsTable({ drops, now }: { drops: DropView[]; now: number }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState<DropView | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [said, setSaid] = useState("");
  const [pending, start] = useTransition();
  if (drops.length === 0)
    return (
      <>
        <Said text={said} testId="drops-said" />
        <p className="muted">No drops yet. Deploy one from the home page, the API or an agent.</p>
      </>
    );
  return (
    <>
      <Said text={said} testId="drops-said" />
      <Problem failure={failure} />
      <div className="table-wrap">
        <table className="drops-table stack">
          <thead>
            <tr>
              <th scope="col">Drop</th>
              <th scope="col">State</th>
              <th scope="col">Files</th>
              <th scope="col">Updated</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {drops.map((d) => (
              <tr key={d.slug} data-testid={`drop-${d.slug}`} className={dropState(d.expires_at, now)}>
                <td className="primary">
                  <span>
                    <Link href={`/dashboard/drops/${d.slug}`}>{d.name ?? d.slug}</Link>
                    <br />
                    <a href={d.url} className="muted small-link">
                      {host(d.url)}
                    </a>
                  </span>
                </td>
                <td data-label="State">
                  <StateBadge expiresAt={d.expires_at} now={now} />
                </td>
                <td data-label="Files">{d.file_count}</td>
                <td data-label="Updated">
                  <time dateTime={d.updated_at} title={dateTime(d.updated_at)}>
                    {relative(d.updated_at, now)}
                  </time>
                </td>
                <td data-label="Expires">
                  <Expiry iso={d.expires_at} now={now} />
                </td>
                <td className="actions">
                  <span className="row" style={{ justifyContent: "flex-end" }}>
                    <CopyButton text={d.url} label={`Copy the URL of ${d.name ?? d.slug}`} />
                    <button type="button" className="button small secondary" aria-label={`Delete ${d.name ?? d.slug}`} onClick={() => setConfirming(d)}>
                      Delete
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title={`Delete ${confirming?.name ?? confirming?.slug ?? ""}?`}
        body={`${confirming ? host(confirming.url) : ""} stops serving at once and its files are removed. This cannot be undone.`}
        confirm="Confirm delete"
        busy={pending}
        onCancel={() => setConfirming(null)}
        onConfirm={() =>
          start(async () => {
            if (!confirming) return;
            const r = await deleteDropAction(confirming.slug);
            setConfirming(null);
            setFailure(r.ok ? null : r);
            setSaid(r.ok ? `Deleted ${confirming.name ?? confirming.slug}.` : "");
            router.refresh();
          })
        }
      />
    </>
  );
}

/**
 * A modal confirmation (the native dialog, showModal()): asking changes nothing on the page
 * behind it, which is inert meanwhile. Focus starts on Cancel, Tab and Shift+Tab go round the
 * dialog's buttons (never out to the browser's toolbar), Escape cancels, and on closing focus
 * returns to what opened it when that is still on the page.
 */
export function ConfirmDialog({
  open,
  title,
  body,
  confirm,
  busy,
  onCancel,
  onConfirm,
  testId = "confirm-dialog",
}: {
  open: boolean;
  title: string;
  body: string;
  confirm: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // One page may hold several dialogs (a drop's delete and rollback): each names itself by its own heading.
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    }
    if (!open && d.open) d.close();
  }, [open]);
  const trap = (e: React.KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== "Tab") return;
    const stops = [...e.currentTarget.querySelectorAll<HTMLElement>("button:not(:disabled), a[href], input:not(:disabled), [tabindex]:not([tabindex='-1'])")];
    const first = stops[0];
    const last = stops[stops.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <dialog
      ref={ref}
      className="confirm"
      onCancel={onCancel}
      onClose={() => {
        if (opener.current?.isConnected) opener.current.focus();
        opener.current = null;
      }}
      onKeyDown={trap}
      aria-labelledby={titleId}
      data-testid={testId}
    >
      <h2 id={titleId}>{title}</h2>
      <p>{body}</p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}

export interface KeyView {
  keyId: string;
  prefix: string;
  note: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface ConnectedClientView {
  keyId: string;
  client_name: string;
  createdAt: string;
}

/** Agents connected through OAuth (MCP connectors), beside the API keys; revoking ends their access at once. */
export function ConnectedClientsPanel({ clients }: { clients: ConnectedClientView[] }) {
  const router = useRouter();
  const [said, setSaid] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  return (
    <>
      <h3 id="connected-title">Connected agents</h3>
      <Problem failure={failure} />
      <Said text={said} testId="clients-said" />
      {clients.length === 0 ? (
        <p className="muted">No agents connected through OAuth. An agent platform connects by adding this server&apos;s /mcp URL; you approve it here.</p>
      ) : (
        <ul className="plain" aria-labelledby="connected-title">
          {clients.map((c) => (
            <li key={c.keyId} className="row" style={{ justifyContent: "flex-start" }} data-testid={`client-${c.keyId}`}>
              <span>
                <strong>{c.client_name}</strong> <span className="muted">since {day(c.createdAt)}</span>
              </span>
              <button
                type="button"
                className="button small secondary"
                aria-label={`Revoke ${c.client_name}`}
                disabled={pending}
                onClick={() =>
                  start(async () => {
                    const r = await revokeKeyAction(c.keyId);
                    setFailure(r.ok ? null : r);
                    setSaid(r.ok ? `${c.client_name} disconnected.` : "");
                    router.refresh();
                  })
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function KeysPanel({ keys }: { keys: KeyView[] }) {
  const router = useRouter();
  const [note, setNote] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  return (
    <>
      <form
        className="row"
        style={{ justifyContent: "flex-start" }}
        onSubmit={(e) => {
          e.preventDefault();
          start(async () => {
            const r = await mintKeyAction(note);
            if (r.ok) {
              setSecret(r.data.apiKey);
              setSaid("API key minted: copy it now, it is shown once.");
              setNote("");
              setFailure(null);
            } else setFailure(r);
            router.refresh();
          });
        }}
      >
        <label htmlFor="key-note">Note</label>
        <input id="key-note" type="text" value={note} maxLength={200} onChange={(e) => setNote(e.target.value)} placeholder="e.g. CI deploys" />
        <button type="submit" className="button" disabled={pending}>
          Mint API key
        </button>
      </form>
      <Problem failure={failure} />
      <Said text={said} testId="keys-said" />
      {secret && (
        <div className="notice" data-testid="new-key">
          <p>
            <strong>Copy this key now. It is shown once and cannot be recovered.</strong>
          </p>
          <p className="secret" data-testid="new-key-secret">
            {secret}
          </p>
          <CopyButton text={secret} label="Copy key" className="button small">
            Copy key
          </CopyButton>
        </div>
      )}
      {keys.length === 0 ? (
        <p className="muted">No API keys.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Note</th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.keyId} data-testid={`key-${k.prefix}`}>
                  <td className="primary">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Note">{k.note || "—"}</td>
                  <td data-label="Last used">{k.lastUsedAt ? day(k.lastUsedAt) : "never"}</td>
                  <td data-label="Created">{day(k.createdAt)}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="button small secondary"
                      aria-label={`Revoke key ${k.prefix}`}
                      disabled={pending}
                      onClick={() =>
                        start(async () => {
                          const r = await revokeKeyAction(k.keyId);
                          setFailure(r.ok ? null : r);
                          setSaid(r.ok ? `Key ${k.prefix} revoked.` : "");
                          // The one-time secret of a key just revoked is no use to anyone.
                          if (r.ok && secret?.startsWith(k.prefix)) setSecret(null);
                          router.refresh();
                        })
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  deliveries: Array<{ event_id: string; type: string; status_code: number | null; error: string | null; attempt: number; created_at: string }>;
}

/** The account's webhooks: add one (its secret shown once), each one's latest attempts, remove. */
export function WebhooksPanel({ webhooks, eventTypes, recent }: { webhooks: WebhookView[]; eventTypes: readonly string[]; recent: number }) {
  const router = useRouter();
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<string[]>([...eventTypes]);
  const [secret, setSecret] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          start(async () => {
            const r = await addWebhookAction(url, chosen.length === eventTypes.length ? undefined : chosen);
            if (r.ok) {
              setSecret(r.data.secret);
              setSaid("Webhook added: copy its signing secret now, it is shown once.");
              setUrl("");
              setFailure(null);
            } else setFailure(r);
            router.refresh();
          });
        }}
      >
        <div className="row" style={{ justifyContent: "flex-start" }}>
          <label htmlFor="webhook-url">Receiver URL</label>
          <input id="webhook-url" type="url" required value={url} maxLength={2048} onChange={(e) => setUrl(e.target.value)} placeholder="https://ci.example.com/dropsite" />
          <button type="submit" className="button" disabled={pending}>
            Add webhook
          </button>
        </div>
        <details>
          <summary>Events ({chosen.length === eventTypes.length ? "all" : chosen.length})</summary>
          <fieldset>
            <legend>Send these events</legend>
            {eventTypes.map((t) => (
              <label key={t} style={{ display: "block" }}>
                <input type="checkbox" checked={chosen.includes(t)} onChange={(e) => setChosen(e.target.checked ? eventTypes.filter((x) => x === t || chosen.includes(x)) : chosen.filter((x) => x !== t))} /> <code>{t}</code>
              </label>
            ))}
          </fieldset>
        </details>
      </form>
      <Problem failure={failure} />
      <Said text={said} testId="webhooks-said" />
      {secret && (
        <div className="notice" data-testid="new-webhook">
          <p>
            <strong>Copy this signing secret now. It is shown once and cannot be recovered.</strong>
          </p>
          <p className="secret" data-testid="new-webhook-secret">
            {secret}
          </p>
          <CopyButton text={secret} label="Copy secret" className="button small">
            Copy secret
          </CopyButton>
        </div>
      )}
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
                onClick={() =>
                  start(async () => {
                    const r = await removeWebhookAction(w.id);
                    setFailure(r.ok ? null : r);
                    setSaid(r.ok ? `Webhook ${w.url} removed.` : "");
                    router.refresh();
                  })
                }
              >
                Remove
              </button>
            </h3>
            <p className="muted">
              <code>{w.id}</code> · {w.events.length === eventTypes.length ? "all events" : w.events.join(", ")}
            </p>
            {w.deliveries.length === 0 ? (
              <p className="muted">No deliveries yet.</p>
            ) : (
              <div className="table-wrap">
                {/* Long ids and errors wrap, so the table never scrolls sideways (nothing in it takes focus). */}
                <table className="stack" style={{ overflowWrap: "anywhere" }}>
                  <caption className="visually-hidden">Latest {recent} delivery attempts to {w.url}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Event</th>
                      <th scope="col">Attempt</th>
                      <th scope="col">Result</th>
                    </tr>
                  </thead>
                  <tbody>
                    {w.deliveries.map((d) => (
                      <tr key={`${d.event_id}-${d.attempt}`}>
                        <td className="primary">
                          <time dateTime={d.created_at}>{dateTime(d.created_at)}</time>
                        </td>
                        <td data-label="Event">
                          <code>{d.type}</code> <span className="muted">{d.event_id}</span>
                        </td>
                        <td data-label="Attempt">{d.attempt}</td>
                        <td data-label="Result">{d.error === null ? `delivered (${d.status_code})` : d.error}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </article>
        ))
      )}
    </>
  );
}

function subscribeToStorage(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  return () => window.removeEventListener("storage", onChange);
}

function readClaims(stored: string | null): PendingClaim[] {
  try {
    const parsed: unknown = JSON.parse(stored ?? "[]");
    return Array.isArray(parsed) ? (parsed as PendingClaim[]) : [];
  } catch {
    return [];
  }
}

export function PendingClaims({ now }: { now: number }) {
  const router = useRouter();
  // Browser storage is read after hydration (the server has none), and again when it changes.
  const stored = useSyncExternalStore(subscribeToStorage, () => localStorage.getItem(PENDING_CLAIMS_KEY), () => null);
  const claims = useMemo(() => readClaims(stored), [stored]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  const forget = (slug: string) => {
    localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(claims.filter((c) => c.slug !== slug)));
    // The storage event reaches other tabs only; tell this one too.
    window.dispatchEvent(new StorageEvent("storage", { key: PENDING_CLAIMS_KEY }));
  };
  if (claims.length === 0) return null;
  return (
    <section className="card" aria-labelledby="claims-title">
      <h2 id="claims-title">Anonymous drops from this browser</h2>
      <p className="muted">Claim them to keep them in your account.</p>
      <Problem failure={failure} />
      <ul>
        {claims.map((c) => (
          <li key={c.slug} data-testid={`claim-${c.slug}`}>
            <a href={c.url}>{c.url}</a>{" "}
            {c.expires_at && dropState(c.expires_at, now) === "expired" && (
              <span className="badge expired" title="Claiming brings it back online">
                Expired · offline
              </span>
            )}{" "}
            <button
              type="button"
              className="button small"
              disabled={pending}
              onClick={() =>
                start(async () => {
                  const r = await claimAction(c.slug, c.claim_token);
                  if (r.ok || r.code === "not_found" || r.code === "gone") forget(c.slug);
                  setFailure(r.ok ? null : r);
                  router.refresh();
                })
              }
            >
              Claim
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function PlanPanel({ plan, activeSubscription, portalAvailable, currentPeriodEnd, cancelAt }: { plan: string; activeSubscription: boolean; portalAvailable: boolean; currentPeriodEnd: string | null; cancelAt: string | null }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  const go = (action: () => Promise<ActionResult<{ url: string }>>) =>
    start(async () => {
      const r = await action();
      if (r.ok) window.location.assign(r.data.url);
      else setFailure(r);
    });
  return (
    <>
      <p>
        Plan: <strong data-testid="plan">{plan}</strong>
        {activeSubscription && currentPeriodEnd && <span className="muted"> · renews {day(currentPeriodEnd)}</span>}
        {cancelAt && <span className="muted"> · ends {day(cancelAt)}</span>}
      </p>
      <div className="row" style={{ justifyContent: "flex-start" }}>
        {plan !== "pro" && plan !== "team" && (
          <button type="button" className="button" disabled={pending} onClick={() => go(() => checkoutAction("pro"))}>
            Upgrade to Pro
          </button>
        )}
        {plan !== "team" && (
          <button type="button" className="button secondary" disabled={pending} onClick={() => go(() => checkoutAction("team"))}>
            Upgrade to Team
          </button>
        )}
        {portalAvailable && (
          <button type="button" className="button secondary" disabled={pending} onClick={() => go(portalAction)}>
            Manage billing
          </button>
        )}
      </div>
      <Problem failure={failure} />
    </>
  );
}

export function NamedDeploy() {
  const [name, setName] = useState("");
  const valid = NAME_PATTERN.test(name);
  return (
    <>
      <p>
        <label htmlFor="drop-name">Drop name</label>
        <br />
        <input id="drop-name" type="text" value={name} onChange={(e) => setName(e.target.value.toLowerCase())} placeholder="my-site" pattern={NAME_PATTERN.source.slice(1, -1)} />
      </p>
      {valid ? <DropZone endpoint="/dashboard/upload" preflightEndpoint="/dashboard/preflight" name={name} /> : <p className="muted">Lowercase letters, digits and hyphens, up to 41 characters. Redeploying a name replaces its content and keeps its URL.</p>}
    </>
  );
}

export function VanityPanel({ sub, serveExample }: { sub: string | null; serveExample: string }) {
  const router = useRouter();
  const [value, setValue] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  if (sub) return <p>Your subdomain: <strong>{sub}</strong>. Named drops serve at <code>{serveExample.replace("<sub>", sub)}</code>.</p>;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        start(async () => {
          const r = await vanityAction(value);
          setFailure(r.ok ? null : r);
          router.refresh();
        });
      }}
    >
      <label htmlFor="vanity-sub">Subdomain</label>{" "}
      <input id="vanity-sub" type="text" value={value} onChange={(e) => setValue(e.target.value.toLowerCase())} minLength={3} maxLength={20} />{" "}
      <button type="submit" className="button" disabled={pending}>
        Claim
      </button>
      <Problem failure={failure} />
    </form>
  );
}

/** The slug in a drop URL (https://<slug>.host/), or the text itself when it is already a slug. */
function slugFrom(input: string): string {
  const text = input.trim();
  try {
    return new URL(text).hostname.split(".")[0] ?? text;
  } catch {
    return text.replace(/\/+$/, "");
  }
}

// Claims a drop deployed anonymously elsewhere (curl, an agent, another browser) from its URL
// and claim token; the token file downloaded after a deploy can be pasted whole.
export function ClaimTokenPanel() {
  const router = useRouter();
  const [drop, setDrop] = useState("");
  const [token, setToken] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [claimed, setClaimed] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const onToken = (value: string) => {
    // The downloaded token file is JSON carrying both the URL and the token.
    try {
      const parsed = JSON.parse(value) as { url?: unknown; slug?: unknown; claim_token?: unknown };
      if (typeof parsed.claim_token === "string") {
        setToken(parsed.claim_token);
        if (typeof parsed.url === "string" || typeof parsed.slug === "string") setDrop(String(parsed.url ?? parsed.slug));
        return;
      }
    } catch {
      /* a bare token */
    }
    setToken(value.trim());
  };
  return (
    <form
      data-testid="claim-form"
      onSubmit={(e) => {
        e.preventDefault();
        start(async () => {
          const r = await claimAction(slugFrom(drop), token);
          setFailure(r.ok ? null : r);
          setClaimed(r.ok ? r.data.url : null);
          if (r.ok) {
            setDrop("");
            setToken("");
          }
          router.refresh();
        });
      }}
    >
      <div className="form-grid">
        <p>
          <label htmlFor="claim-drop">Drop URL or slug</label>
          <input id="claim-drop" type="text" value={drop} onChange={(e) => setDrop(e.target.value)} placeholder="https://…" required autoComplete="off" />
        </p>
        <p>
          <label htmlFor="claim-token">Claim token (or the saved token file&apos;s text)</label>
          <input id="claim-token" type="text" value={token} onChange={(e) => onToken(e.target.value)} required autoComplete="off" spellCheck={false} />
        </p>
      </div>
      <button type="submit" className="button" disabled={pending}>
        Claim drop
      </button>
      <div role="status">
        {claimed && (
          <p className="notice">
            Claimed: <a href={claimed}>{claimed}</a> is now in your account.
          </p>
        )}
      </div>
      <Problem failure={failure} />
    </form>
  );
}

// Copy and delete on the page of one drop; after deleting, back to the dashboard.
export function DropActions({ slug, url, name }: { slug: string; url: string; name: string | null }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  return (
    <>
      <p className="row" style={{ justifyContent: "flex-start" }}>
        <CopyButton text={url} label="Copy the URL" className="button small" />
        <a className="button small secondary" href={url} target="_blank" rel="noopener">
          Open
        </a>
        <button type="button" className="button small secondary" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </p>
      <Problem failure={failure} />
      <ConfirmDialog
        open={confirming}
        title={`Delete ${name ?? slug}?`}
        body={`${host(url)} stops serving at once and its files are removed. This cannot be undone.`}
        confirm="Confirm delete"
        busy={pending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          start(async () => {
            const r = await deleteDropAction(slug);
            setConfirming(false);
            if (r.ok) router.push("/dashboard");
            else setFailure(r);
          })
        }
      />
    </>
  );
}

export interface VersionView {
  version: number;
  created_at: string;
  file_count: number;
  total_bytes: number;
  kind: "deploy" | "replace" | "append";
  live: boolean;
}

/** A drop's retained versions, newest first, each with a Rollback button behind a confirmation dialog. */
export function VersionsPanel({ slug, url, versions, now }: { slug: string; url: string; versions: VersionView[]; now: number }) {
  const router = useRouter();
  const [target, setTarget] = useState<VersionView | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  return (
    <>
      <div className="table-wrap">
        <table className="files-table" data-testid="drop-versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Files</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span className="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} aria-current={v.live ? "true" : undefined}>
                <td>
                  {v.version}
                  {v.live && <span className="muted"> (live)</span>}
                </td>
                <td>
                  <time dateTime={v.created_at} title={dateTime(v.created_at)}>
                    {relative(v.created_at, now)}
                  </time>
                </td>
                <td>{v.kind}</td>
                <td className="num">{v.file_count}</td>
                <td className="num">{bytes(v.total_bytes)}</td>
                <td>
                  {!v.live && (
                    <button type="button" className="button small secondary" onClick={() => setTarget(v)} aria-label={`Roll back to version ${v.version}`}>
                      Rollback
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Problem failure={failure} />
      <ConfirmDialog
        open={target !== null}
        title={`Serve version ${target?.version ?? ""}?`}
        body={`${host(url)} serves version ${target?.version ?? ""} at once (${target?.file_count ?? 0} files). The other versions stay, so you can switch back.`}
        confirm="Confirm rollback"
        testId="rollback-dialog"
        busy={pending}
        onCancel={() => setTarget(null)}
        onConfirm={() =>
          start(async () => {
            const r = target ? await rollbackAction(slug, target.version) : null;
            setTarget(null);
            if (r && !r.ok) setFailure(r);
            else router.refresh();
          })
        }
      />
    </>
  );
}
