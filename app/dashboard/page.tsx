import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { listDrops } from "@/lib/drops/manage";
import { listKeys } from "@/lib/auth/keys";
import { webhooksWithRecent } from "@/lib/webhooks/manage";
import { WEBHOOK_EVENT_TYPES } from "@/lib/patterns";
import { entitlements } from "@/lib/billing/entitlements";
import { isPaid, limits } from "@/lib/plans";
import { publicScheme } from "@/lib/env";
import { dashboardPageSchema } from "@/lib/schemas";
import { Header } from "../_components/Header";
import { ClaimTokenPanel } from "./claim-token-panel";
import { ConnectedClientsPanel } from "./connected-clients-panel";
import { DropsTable } from "./drops-table";
import { KeysPanel } from "./keys-panel";
import { NamedDeploy } from "./named-deploy";
import { PendingClaims } from "./pending-claims";
import { PlanPanel } from "./plan-panel";
import { VanityPanel } from "./vanity-panel";
import { WebhooksPanel } from "./webhooks-panel";

export const dynamic = "force-dynamic";

const PAGE_SIZE = 20;
/** Delivery attempts shown under each webhook. */
const RECENT_DELIVERIES = 5;

// The dashboard: drops, keys, webhooks, plan, claims and the vanity subdomain of the session's account.
export default async function Dashboard({ searchParams }: { searchParams: Promise<{ page?: string }> }) {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const { account } = caller;
  const page = dashboardPageSchema(PAGE_SIZE).parse((await searchParams).page);
  const [drops, keys, hooks] = await Promise.all([
    listDrops(ctx, account, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    listKeys(ctx, caller),
    webhooksWithRecent(ctx, account, RECENT_DELIVERIES),
  ]);
  const ent = entitlements(ctx, account);
  const pages = Math.max(1, Math.ceil(drops.total / PAGE_SIZE));
  const paid = isPaid(account.plan);
  const now = ctx.now();
  return (
    <>
      <Header />
      <main>
        <h1>Dashboard</h1>
        <p className="muted">
          Signed in as {account.email ?? account.id} · account <code>{account.id}</code> ·{" "}
          <Link href="/api/auth/signout">Sign out</Link>
        </p>
        <PendingClaims now={now} />
        <section className="card" aria-labelledby="plan-title">
          <h2 id="plan-title">Plan</h2>
          <PlanPanel
            plan={ent.plan}
            activeSubscription={ent.activeSubscription}
            portalAvailable={ent.portalAvailable ?? false}
            currentPeriodEnd={ent.currentPeriodEnd ?? null}
            cancelAt={ent.cancelAt ?? null}
          />
        </section>
        <section className="card" aria-labelledby="drops-title">
          <h2 id="drops-title">
            Drops <span className="muted">({drops.total})</span>
          </h2>
          <DropsTable drops={drops.drops} now={now} />
          {pages > 1 && (
            <nav className="row" aria-label="Drop pages" style={{ justifyContent: "flex-start", marginTop: "0.75rem" }}>
              {page > 1 && <Link href={`/dashboard?page=${page - 1}`}>← Newer</Link>}
              <span className="muted">
                Page {page} of {pages}
              </span>
              {page < pages && <Link href={`/dashboard?page=${page + 1}`}>Older →</Link>}
            </nav>
          )}
        </section>
        <section className="card" aria-labelledby="claim-title">
          <h2 id="claim-title">Claim an anonymous drop</h2>
          <p className="muted">
            Deployed with curl, an agent or another browser? Paste the drop&apos;s URL and the claim token from its
            deploy response.
          </p>
          <ClaimTokenPanel />
        </section>
        <section className="card" aria-labelledby="deploy-title">
          <h2 id="deploy-title">Deploy a named drop</h2>
          {paid ? (
            <NamedDeploy />
          ) : (
            <p className="muted">Named drops keep their URL across redeploys. They come with Pro and Team.</p>
          )}
        </section>
        <section className="card" aria-labelledby="keys-title">
          <h2 id="keys-title">API keys</h2>
          <p className="muted">Keys act for this whole account. Up to {limits[account.plan].maxKeys} live keys.</p>
          <KeysPanel keys={keys.keys.filter((k) => k.kind === "api_key")} />
          <ConnectedClientsPanel clients={keys.keys.filter((k) => k.kind === "oauth")} />
        </section>
        <section className="card" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Webhooks</h2>
          <p className="muted">
            Signed POSTs of every change to your drops (deploys, redeploys, deletes, expiry, claims, access changes),
            retried for a day when your receiver is down. Up to {limits[account.plan].maxWebhooks} webhooks.{" "}
            <Link href="/docs#webhooks">How to verify them</Link>.
          </p>
          <WebhooksPanel webhooks={hooks} eventTypes={WEBHOOK_EVENT_TYPES} recent={RECENT_DELIVERIES} />
        </section>
        <section className="card" aria-labelledby="vanity-title">
          <h2 id="vanity-title">Vanity subdomain</h2>
          {account.plan === "team" ? (
            <VanityPanel
              sub={account.vanitySub}
              serveExample={`${publicScheme(ctx.env)}://<sub>--<name>.${ctx.env.SERVE_DOMAIN}/`}
            />
          ) : (
            <p className="muted">Team accounts serve named drops at their own subdomain.</p>
          )}
        </section>
      </main>
    </>
  );
}
