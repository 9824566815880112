import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { peekInvite } from "@/lib/teams/invites";
import { DashboardShell } from "../../../shell";
import { JoinButton } from "./join-button";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Join a team · dropsite", referrer: "no-referrer" };

// /dashboard/teams/join/<code> – the URL of a team invitation: a logged-in person sees the team
// and role and joins with one button (POST /teams/join's service). Without a session: the login
// page, which comes back here.
export default async function JoinTeamPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  const caller = await sessionPerson();
  if (!caller) redirect(`/login?next=${encodeURIComponent(`/dashboard/teams/join/${code}`)}`);
  const invite = await peekInvite(await getContext(), code);
  return (
    <DashboardShell account={caller.account}>
      <h1>Join a team</h1>
      <section className="card" aria-labelledby="join-title">
        {invite?.usable ? (
          <>
            <h2 id="join-title">
              {invite.team.name} <span className="muted">({invite.team.slug})</span>
            </h2>
            <p>
              You are invited to join as <strong>{invite.role}</strong>. The invitation works once.
            </p>
            <JoinButton code={code} team={invite.team.name} role={invite.role} />
          </>
        ) : (
          <>
            <h2 id="join-title">{invite ? "This invitation can no longer be used" : "No such invitation"}</h2>
            <p>
              {invite
                ? "It was used, revoked or has expired. Ask an admin of the team for a new one."
                : "Check the link you were given, or ask an admin of the team for a new invitation."}{" "}
              <Link href="/dashboard">Back to your drops</Link>
            </p>
          </>
        )}
      </section>
    </DashboardShell>
  );
}
