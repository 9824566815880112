import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { entitlements } from "@/lib/billing/entitlements";
import { getContext } from "@/lib/context";
import { countOwnedDrops } from "@/lib/db/queries";
import { withDb } from "@/lib/db/errors";
import { limits, type Plan } from "@/lib/plans";
import type { Caller } from "@/lib/auth/caller";
import type { AccountRow } from "@/lib/db/schema";
import { can } from "@/lib/teams/roles";
import { PlanPanel } from "../plan-panel";
import { DashboardShell } from "../shell";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Billing and plan · dropsite" };

// The account's plan, what it allows and how much of it is used; upgrade or manage billing.
export default async function BillingPage() {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const { account } = caller;
  if (caller.team) return <TeamBilling caller={caller} team={caller.team} />;
  const ent = entitlements(ctx, account);
  const owned = await withDb(() => countOwnedDrops(ctx.db, account.id));
  return (
    <DashboardShell account={account}>
      <h1>Billing and plan</h1>
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
      <section className="card" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        <Usage owned={owned} plan={account.plan} />
      </section>
    </DashboardShell>
  );
}

// Acting as a team: its plan is its billing owner's subscription (DESIGN "Teams"); billing is the
// owners' business, and anyone else sees only that (the role is checked before anything is read).
async function TeamBilling({
  caller,
  team,
}: {
  caller: Caller & { account: AccountRow };
  team: NonNullable<Caller["team"]>;
}) {
  if (!can(team.role, "billing")) {
    return (
      <DashboardShell account={caller.account}>
        <h1>Billing and plan</h1>
        <p className="error" role="alert" data-testid="billing-refused">
          Your role in this team ({team.role}) may not see the team&apos;s billing. Ask an owner of the team.
        </p>
      </DashboardShell>
    );
  }
  const ctx = await getContext();
  const owned = await withDb(() => countOwnedDrops(ctx.db, caller.account.id));
  return (
    <DashboardShell account={caller.account}>
      <h1>Billing and plan</h1>
      <section className="card" aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        <p data-testid="team-plan">
          This team is on the <strong>{caller.account.plan}</strong> plan while its billing owner&apos;s subscription
          is. The billing owner manages that subscription acting as themselves.
        </p>
        <Usage owned={owned} plan={caller.account.plan} team />
      </section>
    </DashboardShell>
  );
}

/** What the plan allows and how much of it is used: a person's account, or (`team`) a team's, with its seats. */
function Usage({ owned, plan, team = false }: { owned: number; plan: Plan; team?: boolean }) {
  const p = limits[plan];
  return (
    <dl className="facts">
      <dt>Drops</dt>
      <dd data-testid="usage-drops">
        {owned.toLocaleString("en-US")}
        {p.maxDrops !== null && <> of {p.maxDrops.toLocaleString("en-US")}</>}
      </dd>
      {team && (
        <>
          <dt>Members</dt>
          <dd>up to {p.maxMembers}</dd>
        </>
      )}
      <dt>API keys</dt>
      <dd>up to {p.maxKeys}</dd>
      <dt>Webhooks</dt>
      <dd>up to {p.maxWebhooks}</dd>
      <dt>Custom domains</dt>
      <dd>{p.maxDomains > 0 ? `up to ${p.maxDomains}` : "not on this plan"}</dd>
    </dl>
  );
}
