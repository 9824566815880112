import Link from "next/link";
import type { ReactNode } from "react";
import type { AccountRow } from "@/lib/db/schema";
import { Header } from "../_components/Header";
import { isOperator } from "@/lib/admin/operators";
import { env } from "@/lib/env";
import { DashboardNav } from "./dashboard-nav";
import { DASHBOARD_NAV, OPERATORS_ENTRY } from "./nav";

/** Every page of the dashboard: the site header, the dashboard's navigation beside (or above) the page (with Operators for operators), who is signed in. */
export function DashboardShell({ account, children }: { account: AccountRow; children: ReactNode }) {
  return (
    <>
      <Header />
      <div className="app-shell">
        <aside className="app-side">
          <DashboardNav entries={isOperator(env(), account) ? [...DASHBOARD_NAV, OPERATORS_ENTRY] : DASHBOARD_NAV} />
          <p className="muted app-who">
            {account.email ?? account.id}
            <br />
            <Link href="/api/auth/signout">Sign out</Link>
          </p>
        </aside>
        <main>{children}</main>
      </div>
    </>
  );
}
