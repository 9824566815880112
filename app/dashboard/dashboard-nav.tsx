"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { currentEntry, DASHBOARD_NAV, type NavEntry } from "./nav";

/** The dashboard's persistent navigation, the current area marked with aria-current="page". */
export function DashboardNav({ entries = DASHBOARD_NAV }: { entries?: readonly NavEntry[] }) {
  const current = currentEntry(usePathname() ?? "/dashboard", entries);
  return (
    <nav aria-label="Dashboard" className="app-nav">
      <ul>
        {entries.map((e) => (
          <li key={e.href}>
            <Link href={e.href} aria-current={e === current ? "page" : undefined}>
              {e.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
