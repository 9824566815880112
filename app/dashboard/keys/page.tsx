import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { listKeys } from "@/lib/auth/keys";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { limits } from "@/lib/plans";
import { personCaller, personOf } from "@/lib/teams/acting";
import { ConnectedClientsPanel } from "../connected-clients-panel";
import { KeysPanel } from "../keys-panel";
import { DashboardShell } from "../shell";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "API keys and agents · dropsite" };

// The account's API keys (mint, revoke) and the agents connected through OAuth (disconnect).
export default async function KeysPage() {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  // Acting as a team: the team's keys (all of them for admins and owners, one's own otherwise).
  const keys = await listKeys(ctx, personCaller(caller));
  return (
    <DashboardShell account={caller.account}>
      <h1>API keys and agents</h1>
      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p className="muted">
          {caller.team
            ? `Team keys act for this team with your role in it (${caller.team.role}), checked at every use.`
            : "Keys act for this whole account."}{" "}
          Up to {limits[personOf(caller).plan].maxKeys} live keys.
        </p>
        <KeysPanel keys={keys.keys.filter((k) => k.kind === "api_key")} />
        <ConnectedClientsPanel clients={keys.keys.filter((k) => k.kind === "oauth")} />
      </section>
    </DashboardShell>
  );
}
