import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { DEFAULT_DROP_LIST, dropListHref, listDropsFor, parseDropListQuery } from "@/lib/drops/list-query";
import { isPaid } from "@/lib/plans";
import { ClaimTokenPanel } from "./claim-token-panel";
import { DropFilters } from "./drop-filters";
import { DropsTable } from "./drops-table";
import { NamedDeploy } from "./named-deploy";
import { PendingClaims } from "./pending-claims";
import { DashboardShell } from "./shell";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Drops · dropsite" };

// The dashboard's first page: the account's drops, searched, filtered, sorted and paged as the
// URL says (lib/drops/list-query.ts); then claiming anonymous drops and deploying a named one.
export default async function Dashboard({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const { account } = caller;
  const query = parseDropListQuery(await searchParams);
  const drops = await listDropsFor(ctx, account, query);
  const pages = Math.max(1, Math.ceil(drops.total / query.size));
  const filtered = query.q !== "" || query.state !== DEFAULT_DROP_LIST.state;
  const now = ctx.now();
  return (
    <DashboardShell account={account}>
      <h1>Drops</h1>
      <PendingClaims now={now} />
      <section className="card" aria-labelledby="drops-title">
        <h2 id="drops-title">
          {filtered ? "Matching drops" : "All drops"}{" "}
          <span className="muted" data-testid="drops-total">
            ({drops.total.toLocaleString("en-US")})
          </span>
        </h2>
        <DropFilters query={query} />
        <DropsTable
          drops={drops.drops}
          now={now}
          empty={
            filtered ? (
              <p className="muted">
                No drops match. <Link href="/dashboard">Show all drops</Link>.
              </p>
            ) : undefined
          }
        />
        {pages > 1 && (
          <nav className="pager" aria-label="Drop pages">
            {query.page > 1 ? (
              <Link href={dropListHref(query, { page: query.page - 1 })} rel="prev">
                ← Previous
              </Link>
            ) : (
              <span />
            )}
            <span className="muted" data-testid="drops-page">
              Page {query.page.toLocaleString("en-US")} of {pages.toLocaleString("en-US")}
            </span>
            {query.page < pages ? (
              <Link href={dropListHref(query, { page: query.page + 1 })} rel="next">
                Next →
              </Link>
            ) : (
              <span />
            )}
          </nav>
        )}
      </section>
      <section className="card" aria-labelledby="claim-title">
        <h2 id="claim-title">Claim an anonymous drop</h2>
        <p className="muted">
          Deployed with curl, an agent or another browser? Paste the drop&apos;s URL and the claim token from its deploy
          response.
        </p>
        <ClaimTokenPanel />
      </section>
      <section className="card" aria-labelledby="deploy-title">
        <h2 id="deploy-title">Deploy a named drop</h2>
        {isPaid(account.plan) ? (
          <NamedDeploy />
        ) : (
          <p className="muted">
            Named drops keep their URL across redeploys. They come with Pro and Team:{" "}
            <Link href="/dashboard/billing">Billing and plan</Link>.
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
