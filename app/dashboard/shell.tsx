import Link from "next/link";
import type { ReactNode } from "react";
import type { AccountRow } from "@/lib/db/schema";
import { Header } from "../_components/Header";
import { isOperator } from "@/lib/admin/operators";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { withDb } from "@/lib/db/errors";
import { listTeamsOf } from "@/lib/db/teams";
import { env } from "@/lib/env";
import { suspensionNotice } from "@/lib/auth/suspended";
import { appealUrl } from "@/lib/safety/disabled";
import { personOf } from "@/lib/teams/acting";
import { ActingSwitcher } from "./acting-switcher";
import { DashboardNav } from "./dashboard-nav";
import { DASHBOARD_NAV, OPERATORS_ENTRY } from "./nav";

/**
 * Every page of the dashboard: the site header, the "Acting as" switcher (the person and their
 * teams), the dashboard's navigation beside (or above) the page (with Operators for operators),
 * who is signed in.
 */
export async function DashboardShell({ account, children }: { account: AccountRow; children: ReactNode }) {
  const caller = await sessionCaller();
  const person = caller ? personOf(caller) : account;
  const teams = await withDb(async () => listTeamsOf((await getContext()).db, person.id));
  const acting = caller?.team ? teams.find((t) => t.id === caller.team?.id) : undefined;
  // A suspended person, or the team they act as: every change is refused (403), so say so first
  // and show the page read-only.
  const suspended =
    suspensionNotice(person, "Your account") ??
    (acting && caller ? suspensionNotice(caller.account, `The team ${acting.name}`) : null);
  return (
    <>
      <Header />
      <div className="app-shell">
        <aside className="app-side">
          {teams.length > 0 && (
            <ActingSwitcher
              current={acting?.slug ?? ""}
              options={[
                { value: "", label: `${person.email ?? person.id} (you)` },
                ...teams.map((t) => ({ value: t.slug, label: `${t.name} (${t.role})` })),
              ]}
            />
          )}
          <DashboardNav entries={isOperator(env(), person) ? [...DASHBOARD_NAV, OPERATORS_ENTRY] : DASHBOARD_NAV} />
          <p className="muted app-who">
            {person.email ?? person.id}
            {acting && (
              <>
                <br />
                <span data-testid="acting-team">
                  as <Link href={`/dashboard/teams/${acting.slug}`}>{acting.name}</Link> ({acting.role})
                </span>
              </>
            )}
            <br />
            <Link href="/api/auth/signout">Sign out</Link>
          </p>
        </aside>
        <main>
          {suspended && (
            <div className="error" role="alert" data-testid="suspended">
              <p>
                <strong>{suspended.message}</strong> The drops it holds answer 451 (unavailable for legal reasons), and
                changes made here are refused until the suspension ends.
              </p>
              <p>
                <a href={appealUrl()}>Appeal with the report form</a> if this is a mistake.
              </p>
            </div>
          )}
          {/* Read-only while suspended: a disabled fieldset disables every control of the page at
              once (the server refuses each change anyway); links, and the switcher beside, work. */}
          {suspended ? (
            <fieldset disabled className="read-only" data-testid="read-only">
              {children}
            </fieldset>
          ) : (
            children
          )}
        </main>
      </div>
    </>
  );
}
