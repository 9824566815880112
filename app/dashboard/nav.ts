// The dashboard's navigation: one entry per account-wide area, each its own server-rendered page.
// An entry is current on its own URL and under it (a drop's page is under Drops).

export interface NavEntry {
  href: string;
  label: string;
}

export const DASHBOARD_NAV: readonly NavEntry[] = [
  { href: "/dashboard", label: "Drops" },
  { href: "/dashboard/domains", label: "Domains" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/keys", label: "API keys and agents" },
  { href: "/dashboard/billing", label: "Billing and plan" },
  // A team's members, invitations and audit log are its page under this one.
  { href: "/dashboard/teams", label: "Teams" },
];

/** Shown to operators only (lib/admin/operators.ts): the review queue and the operators' actions. */
export const OPERATORS_ENTRY: NavEntry = { href: "/admin", label: "Operators" };

/** The entry `pathname` is in: the longest href that is the path or a parent of it. */
export function currentEntry(pathname: string, entries: readonly NavEntry[] = DASHBOARD_NAV): NavEntry | undefined {
  const path = pathname.replace(/\/+$/, "") || "/";
  return entries
    .filter((e) => path === e.href || path.startsWith(`${e.href}/`))
    .sort((a, b) => b.href.length - a.href.length)[0];
}
