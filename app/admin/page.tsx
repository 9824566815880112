import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { isOperator } from "@/lib/admin/operators";
import { adminAudit, adminBlocks, adminCase, adminQueue } from "@/lib/admin/actions";
import { reasonCategories } from "@/lib/safety/schemas";
import { DashboardShell } from "../dashboard/shell";
import { DropThumbnail } from "../_components/DropThumbnail";
import {
  blockAction,
  deleteAction,
  disableAction,
  dismissAction,
  enableAction,
  suspendAction,
  unblockAction,
} from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Operators · dropsite", robots: { index: false } };

// /admin – the operators' page (404 to everyone else): the review queue with each drop's reports
// and scan findings and the actions on it, address blocks, and the latest audit entries. Plain
// forms posting server actions: keyboard-usable and working without JavaScript.
export default async function AdminPage({
  searchParams,
}: {
  searchParams: Promise<{ done?: string; error?: string }>;
}) {
  const caller = await sessionPerson().catch(() => null);
  const ctx = await getContext();
  if (!caller || !isOperator(ctx.env, caller.account)) notFound();
  const q = await searchParams;
  const queue = await adminQueue(ctx, { status: "open", limit: "50" });
  const cases = await Promise.all(queue.items.map((item) => adminCase(ctx, item.slug)));
  const { blocks } = await adminBlocks(ctx);
  const audit = await adminAudit(ctx, { limit: "20" });
  return (
    <DashboardShell account={caller.account}>
      <div>
        <h1>Operators</h1>
        {q.done ? (
          <p role="status" className="card">
            {q.done}
          </p>
        ) : null}
        {q.error ? (
          <p role="alert" className="error">
            {q.error}
          </p>
        ) : null}
        <section aria-labelledby="queue-title">
          <h2 id="queue-title">Review queue ({queue.total})</h2>
          {queue.items.length === 0 ? <p>Nothing to review.</p> : null}
          {queue.items.map((item, i) => {
            const c = cases[i]!;
            const open = c.reports.filter((r) => r.status === "open");
            const id = `drop-${item.slug}`;
            return (
              <article key={item.slug} className="card" aria-labelledby={id}>
                <h3 id={id}>
                  <a href={item.url}>{item.url}</a>
                </h3>
                {item.screenshot_url ? <DropThumbnail src={item.screenshot_url} url={item.url} /> : null}
                <p>
                  Owner: {item.owner ? (item.owner.email ?? item.owner.id) : "anonymous"} · {item.reports.count}{" "}
                  reporting address{item.reports.count === 1 ? "" : "es"} ·{" "}
                  {Object.entries(item.reports.reasons)
                    .map(([r, n]) => `${r} ${n}`)
                    .join(", ") || "no reports"}
                  {item.disabled ? ` · disabled (${item.disabled.reason})` : ""}
                </p>
                {open.length ? (
                  <ul aria-label="Open reports">
                    {open.map((r) => (
                      <li key={r.id}>
                        <strong>{r.reason}</strong> {r.created_at.slice(0, 16).replace("T", " ")}:{" "}
                        {r.details ?? "(no details)"}
                        {r.contact ? ` · contact ${r.contact}` : ""}
                      </li>
                    ))}
                  </ul>
                ) : null}
                {c.findings.length ? (
                  <ul aria-label="Scan findings">
                    {c.findings.map((f, n) => (
                      <li key={n}>
                        <strong>{f.rule}</strong> {f.file}:{f.line} ({f.action}) <code>{f.excerpt}</code>
                      </li>
                    ))}
                  </ul>
                ) : null}
                <div className="admin-actions">
                  {item.disabled ? (
                    <form action={enableAction}>
                      <input type="hidden" name="slug" value={item.slug} />
                      <button type="submit" className="button">
                        Enable
                      </button>
                    </form>
                  ) : (
                    <form action={disableAction}>
                      <input type="hidden" name="slug" value={item.slug} />
                      <label htmlFor={`reason-${item.slug}`}>Reason</label>{" "}
                      <select id={`reason-${item.slug}`} name="reason" defaultValue="phishing">
                        {reasonCategories.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>{" "}
                      <button type="submit" className="button">
                        Disable
                      </button>
                    </form>
                  )}
                  {open[0] ? (
                    <form action={dismissAction}>
                      <input type="hidden" name="report" value={open[0].id} />
                      <button type="submit" className="button">
                        Dismiss reports
                      </button>
                    </form>
                  ) : null}
                  <form action={deleteAction}>
                    <input type="hidden" name="slug" value={item.slug} />
                    <button type="submit" className="button">
                      Delete drop
                    </button>
                  </form>
                  {item.owner ? (
                    <form action={suspendAction}>
                      <input type="hidden" name="account" value={item.owner.id} />
                      <input type="hidden" name="reason" value="other" />
                      <button type="submit" className="button">
                        Suspend owner
                      </button>
                    </form>
                  ) : null}
                </div>
              </article>
            );
          })}
        </section>
        <section aria-labelledby="blocks-title">
          <h2 id="blocks-title">Address blocks</h2>
          <form action={blockAction} className="admin-actions">
            <label htmlFor="block-cidr">Range (CIDR)</label>
            <input id="block-cidr" name="cidr" type="text" required placeholder="203.0.113.0/24" />
            <label htmlFor="block-reason">Reason</label>
            <input id="block-reason" name="reason" type="text" required />
            <button type="submit" className="button">
              Block
            </button>
          </form>
          <ul>
            {blocks.map((b) => (
              <li key={b.id}>
                <code>{b.cidr}</code> {b.reason}
                {b.expires_at ? ` (until ${b.expires_at.slice(0, 16).replace("T", " ")})` : ""}{" "}
                <form action={unblockAction} className="admin-inline">
                  <input type="hidden" name="block" value={b.id} />
                  <button type="submit" className="button" aria-label={`Lift the block of ${b.cidr}`}>
                    Lift
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </section>
        <section aria-labelledby="audit-title">
          <h2 id="audit-title">
            Audit log (latest {audit.entries.length} of {audit.total})
          </h2>
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {audit.entries.map((e) => (
                <tr key={e.id}>
                  <td>{e.at.slice(0, 19).replace("T", " ")}</td>
                  <td>{e.actor}</td>
                  <td>{e.action}</td>
                  <td>{e.target}</td>
                  <td>{e.reason ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </DashboardShell>
  );
}
