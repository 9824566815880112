import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { withDb } from "@/lib/db/errors";
import { listTeamsOf } from "@/lib/db/teams";
import { INTERACTION_COOKIE, loadConsent } from "@/lib/oauth/consent";
import { CONSENT_PATH } from "@/lib/oauth/paths";
import { Header } from "../../../_components/Header";

export const dynamic = "force-dynamic";

const REFUSALS = {
  not_found: "This connection request expired or was already answered. Start the connection again from your agent.",
  other_browser:
    "This connection request was started in another browser. Open the authorization link from your agent in this browser.",
  other_account:
    "This connection request was started while you were logged in as another account. Start the connection again from your agent.",
} as const;

// /dashboard/connect/<uid> – where a person approves or denies an OAuth client (an MCP
// connector) that asks to use the tools as their account. Without a session: the login page,
// which comes back here.
export default async function ConnectPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  const here = `${CONSENT_PATH}/${encodeURIComponent(uid)}`;
  const caller = await sessionPerson();
  if (!caller) redirect(`/login?next=${encodeURIComponent(here)}`);
  const found = await loadConsent(
    await getContext(),
    uid,
    (await cookies()).get(INTERACTION_COOKIE)?.value,
    caller.account.id,
  );
  const teams = found.ok ? await withDb(async () => listTeamsOf((await getContext()).db, caller.account.id)) : [];
  return (
    <>
      <Header />
      <main>
        {found.ok ? (
          <>
            <h1>Connect {found.request.clientName}?</h1>
            <section className="card" aria-labelledby="consent-title">
              <h2 id="consent-title">What {found.request.clientName} asks for</h2>
              <p>
                <strong>{found.request.clientName}</strong> wants to use Dropsite&apos;s MCP tools as your account{" "}
                <strong>{caller.account.email ?? caller.account.id}</strong>:
              </p>
              <ul>
                <li>publish drops and replace the content of your named drops,</li>
                <li>list your drops and read their details and versions,</li>
                <li>delete drops, roll them back and change who may see them.</li>
              </ul>
              <p className="muted">
                It cannot mint API keys, change your plan or see your other connections. You can revoke it at any time
                under API keys on the dashboard.
                {found.request.clientUri ? (
                  <> The client names its home page as {found.request.clientUri}.</>
                ) : null}{" "}
                After your answer you return to <code>{found.request.redirectTo}</code>.
              </p>
              <form method="post" action={`${here}/decide`}>
                {teams.length > 0 && (
                  <fieldset className="connect-as">
                    <legend>Connect as</legend>
                    <label>
                      <input type="radio" name="acting" value="" defaultChecked /> yourself (
                      {caller.account.email ?? caller.account.id})
                    </label>
                    {teams.map((t) => (
                      <label key={t.slug}>
                        <input type="radio" name="acting" value={t.slug} /> the team {t.name} (your role: {t.role})
                      </label>
                    ))}
                    <p className="muted">
                      As a team, the connection acts for the team&apos;s drops with your role in it, checked at every
                      use.
                    </p>
                  </fieldset>
                )}
                <div className="row" style={{ justifyContent: "flex-start", gap: "0.75rem" }}>
                  <button type="submit" name="decision" value="approve" className="button">
                    Approve
                  </button>
                  <button type="submit" name="decision" value="deny" className="button secondary">
                    Deny
                  </button>
                </div>
              </form>
            </section>
          </>
        ) : (
          <>
            <h1>Connect an agent</h1>
            <p className="error" role="alert">
              {REFUSALS[found.reason]}
            </p>
          </>
        )}
      </main>
    </>
  );
}
