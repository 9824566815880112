import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { limits } from "@/lib/plans";
import { listTeams } from "@/lib/teams/teams";
import { DashboardShell } from "../shell";
import { Table } from "../table";
import { CreateTeam } from "./create-team";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Teams · dropsite" };

// /dashboard/teams – the teams the person is in, with their role, and creating one (Team plan).
export default async function TeamsPage() {
  const caller = await sessionPerson();
  if (!caller) redirect("/login?next=/dashboard/teams");
  const { teams } = await listTeams(await getContext(), caller);
  const seats = limits[caller.account.plan].maxMembers;
  return (
    <DashboardShell account={caller.account}>
      <h1>Teams</h1>
      <section className="card" aria-labelledby="teams-title">
        <h2 id="teams-title">Your teams</h2>
        {teams.length === 0 ? (
          <p className="muted">You are in no team yet. An invitation link adds you to one.</p>
        ) : (
          <Table className="stack" columns={["Team", "Slug", "Your role"]} testId="teams-list">
            {teams.map((t) => (
              <tr key={t.id}>
                <td className="primary">
                  <Link href={`/dashboard/teams/${t.slug}`}>{t.name}</Link>
                </td>
                <td data-label="Slug">
                  <code>{t.slug}</code>
                </td>
                <td data-label="Your role">{t.role}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section className="card" aria-labelledby="new-team-title">
        <h2 id="new-team-title">New team</h2>
        {seats > 0 ? (
          <>
            <p className="muted">You will be its owner. A team has up to {seats} members, its owners counted.</p>
            <CreateTeam />
          </>
        ) : (
          <p className="muted">
            Teams are part of the Team plan ({limits.team.maxMembers} members).{" "}
            <Link href="/dashboard/billing">Billing and plan</Link>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
