import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { limits } from "@/lib/plans";
import { WEBHOOK_EVENT_TYPES } from "@/lib/patterns";
import { webhooksWithRecent } from "@/lib/webhooks/manage";
import { DashboardShell } from "../shell";
import { WebhooksPanel } from "../webhooks-panel";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Webhooks · dropsite" };

/** Delivery attempts shown under each webhook. */
const RECENT_DELIVERIES = 5;

// The account's webhooks: add one, each one's latest deliveries, remove.
export default async function WebhooksPage() {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const hooks = await webhooksWithRecent(ctx, caller.account, RECENT_DELIVERIES);
  return (
    <DashboardShell account={caller.account}>
      <h1>Webhooks</h1>
      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Receivers</h2>
        <p className="muted">
          Signed POSTs of every change to your drops (deploys, redeploys, deletes, expiry, claims, access changes),
          retried for a day when your receiver is down. Up to {limits[caller.account.plan].maxWebhooks} webhooks.{" "}
          <Link href="/docs#webhooks">How to verify them</Link>.
        </p>
        <WebhooksPanel webhooks={hooks} eventTypes={WEBHOOK_EVENT_TYPES} recent={RECENT_DELIVERIES} />
      </section>
    </DashboardShell>
  );
}
