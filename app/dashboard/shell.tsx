import Link from "next/link";
import type { ReactNode } from "react";
import type { AccountRow } from "@/lib/db/schema";
import { Header } from "../_components/Header";
import { DashboardNav } from "./dashboard-nav";

/** Every page of the dashboard: the site header, the dashboard's navigation beside (or above) the page, who is signed in. */
export function DashboardShell({ account, children }: { account: AccountRow; children: ReactNode }) {
  return (
    <>
      <Header />
      <div className="app-shell">
        <aside className="app-side">
          <DashboardNav />
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
