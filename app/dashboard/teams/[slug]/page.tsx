import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { ApiError } from "@/lib/errors";
import { TEAM_ROLES } from "@/lib/schemas";
import { teamAuditLog } from "@/lib/teams/audit";
import { listInvites } from "@/lib/teams/invites";
import { teamMembers } from "@/lib/teams/members";
import { can, grantAction, seatAction } from "@/lib/teams/roles";
import { listTeams } from "@/lib/teams/teams";
import { DashboardShell } from "../../shell";
import { Table } from "../../table";
import { InvitesPanel } from "./invites-panel";
import { MembersPanel } from "./members-panel";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Team · dropsite" };

/** The newest audit entries the page shows (the API pages through all of them). */
const AUDIT_SHOWN = 20;

// /dashboard/teams/<slug> – a team's members and roles, its invitations and its audit log, each
// shown and editable as the viewer's role allows (the same lib/teams services as /teams/{team}).
export default async function TeamPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  // The audit log's page (?audit=2 …): anything else is the first page.
  const asked = (await searchParams).audit;
  const auditPage = typeof asked === "string" && /^[1-9][0-9]{0,5}$/.test(asked) ? Number(asked) : 1;
  const caller = await sessionPerson();
  if (!caller) redirect(`/login?next=${encodeURIComponent(`/dashboard/teams/${slug}`)}`);
  const ctx = await getContext();
  const team = (await listTeams(ctx, caller)).teams.find((t) => t.slug === slug);
  if (!team) notFound();
  let members;
  try {
    members = (await teamMembers(ctx, caller, slug)).members;
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") notFound();
    throw err;
  }
  const role = team.role;
  const invites = can(role, "invites") ? (await listInvites(ctx, caller, slug)).invites : null;
  const audit = can(role, "audit")
    ? await teamAuditLog(ctx, caller, slug, {
        limit: String(AUDIT_SHOWN),
        offset: String((auditPage - 1) * AUDIT_SHOWN),
      })
    : null;
  return (
    <DashboardShell account={caller.account}>
      <h1>
        {team.name} <span className="muted">({team.slug})</span>
      </h1>
      <p className="muted">Your role: {role}.</p>
      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <MembersPanel
          slug={slug}
          members={members}
          me={caller.account.id}
          roles={TEAM_ROLES.filter((r) => can(role, grantAction(r)))}
          editable={members
            .filter((m) => m.account_id !== caller.account.id && can(role, seatAction(m.role)))
            .map((m) => m.account_id)}
        />
      </section>
      {invites && (
        <section className="card" aria-labelledby="invites-title">
          <h2 id="invites-title">Invitations</h2>
          <InvitesPanel slug={slug} invites={invites} roles={TEAM_ROLES.filter((r) => can(role, grantAction(r)))} />
        </section>
      )}
      {audit && (
        <section className="card" aria-labelledby="audit-title">
          <h2 id="audit-title">Audit log</h2>
          <p className="muted">
            {audit.total} entries, newest first; <code>GET /teams/{slug}/audit</code> pages through them too.
          </p>
          <Table className="stack" columns={["Time", "Action", "Target", "By", "Credential"]} testId="team-audit">
            {audit.entries.map((e) => (
              <tr key={e.id}>
                <td className="primary">{e.at.slice(0, 19).replace("T", " ")} UTC</td>
                <td data-label="Action">
                  <code>{e.action}</code>
                </td>
                <td data-label="Target">
                  <code>{e.target}</code>
                </td>
                <td data-label="By">{e.actor.email ?? e.actor.id}</td>
                <td data-label="Credential">{e.credential.kind}</td>
              </tr>
            ))}
          </Table>
          {audit.total > AUDIT_SHOWN && (
            <nav className="pager" aria-label="Audit log pages">
              {auditPage > 1 ? (
                <Link href={`/dashboard/teams/${slug}?audit=${auditPage - 1}`} rel="prev">
                  ← Newer
                </Link>
              ) : (
                <span />
              )}
              <span className="muted" data-testid="audit-page">
                Page {auditPage} of {Math.ceil(audit.total / AUDIT_SHOWN)}
              </span>
              {auditPage * AUDIT_SHOWN < audit.total ? (
                <Link href={`/dashboard/teams/${slug}?audit=${auditPage + 1}`} rel="next">
                  Older →
                </Link>
              ) : (
                <span />
              )}
            </nav>
          )}
        </section>
      )}
    </DashboardShell>
  );
}
