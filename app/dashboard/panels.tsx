"use client";

import { useRouter } from "next/navigation";
import { useMemo, useState, useSyncExternalStore, useTransition } from "react";
import type { ActionResult } from "@/lib/auth/actions";
import { NAME_PATTERN } from "@/lib/patterns";
import { DropZone, PENDING_CLAIMS_KEY, readPendingClaims } from "../_components/DropZone";
import { checkoutAction, claimAction, deleteDropAction, mintKeyAction, portalAction, revokeKeyAction, vanityAction } from "./actions";

type Failure = Extract<ActionResult<unknown>, { ok: false }>;

function subscribeToStorage(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  return () => window.removeEventListener("storage", onChange);
}

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

export function DropsTable({ drops }: { drops: DropView[] }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  if (drops.length === 0) return <p className="muted">No drops yet. Deploy one from the home page, the API or an agent.</p>;
  return (
    <>
      <Problem failure={failure} />
      <div className="table-wrap">
        <table className="drops-table">
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Name</th>
              <th scope="col">Files</th>
              <th scope="col">Updated</th>
              <th scope="col">Expires</th>
              <th scope="col">Redeploys</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {drops.map((d) => (
              <tr key={d.slug} data-testid={`drop-${d.slug}`}>
                <td>
                  <a href={d.url}>{d.url.replace(/^https?:\/\//, "").replace(/\/$/, "")}</a>
                </td>
                <td>{d.name ?? "—"}</td>
                <td>{d.file_count}</td>
                <td>{day(d.updated_at)}</td>
                <td>{day(d.expires_at)}</td>
                <td>{d.redeploy_count}</td>
                <td>
                  {confirming === d.slug ? (
                    <span className="row">
                      <button
                        type="button"
                        className="button small danger"
                        disabled={pending}
                        onClick={() =>
                          start(async () => {
                            const r = await deleteDropAction(d.slug);
                            setConfirming(null);
                            setFailure(r.ok ? null : r);
                            router.refresh();
                          })
                        }
                      >
                        Confirm delete
                      </button>
                      <button type="button" className="button small secondary" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <button type="button" className="button small secondary" aria-label={`Delete ${d.name ?? d.slug}`} onClick={() => setConfirming(d.slug)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export interface KeyView {
  keyId: string;
  prefix: string;
  note: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function KeysPanel({ keys }: { keys: KeyView[] }) {
  const router = useRouter();
  const [note, setNote] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
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
              setCopied(false);
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
      {secret && (
        <div className="notice" data-testid="new-key">
          <p>
            <strong>Copy this key now. It is shown once and cannot be recovered.</strong>
          </p>
          <p className="secret" data-testid="new-key-secret">
            {secret}
          </p>
          <button
            type="button"
            className="button small"
            onClick={() => {
              void Promise.resolve(navigator.clipboard?.writeText(secret))
                .catch(() => undefined)
                .then(() => setCopied(true));
            }}
          >
            {copied ? "Copied" : "Copy key"}
          </button>
        </div>
      )}
      {keys.length === 0 ? (
        <p className="muted">No API keys.</p>
      ) : (
        <div className="table-wrap">
          <table>
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
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.note || "—"}</td>
                  <td>{k.lastUsedAt ? day(k.lastUsedAt) : "never"}</td>
                  <td>{day(k.createdAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="button small secondary"
                      aria-label={`Revoke key ${k.prefix}`}
                      disabled={pending}
                      onClick={() =>
                        start(async () => {
                          const r = await revokeKeyAction(k.keyId);
                          setFailure(r.ok ? null : r);
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

export function PendingClaims() {
  const router = useRouter();
  const stored = useSyncExternalStore(subscribeToStorage, () => localStorage.getItem(PENDING_CLAIMS_KEY), () => null);
  const claims = useMemo(() => readPendingClaims(stored), [stored]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, start] = useTransition();
  const forget = (slug: string) => {
    const next = claims.filter((c) => c.slug !== slug);
    localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(next));
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
      {valid ? <DropZone endpoint="/dashboard/upload" name={name} /> : <p className="muted">Lowercase letters, digits and hyphens, up to 41 characters. Redeploying a name replaces its content and keeps its URL.</p>}
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
