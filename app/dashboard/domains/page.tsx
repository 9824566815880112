import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { listDomains } from "@/lib/domains/manage";
import { publicScheme } from "@/lib/env";
import { limits } from "@/lib/plans";
import { DashboardShell } from "../shell";
import { Table } from "../table";
import { VanityPanel } from "../vanity-panel";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Domains · dropsite" };

// The account's hostnames: its vanity subdomain (Team) and every custom domain with the drop it
// serves; a domain is added, checked and removed on its drop's page.
export default async function DomainsPage() {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const { account } = caller;
  const { domains } = await listDomains(ctx, account);
  const max = limits[account.plan].maxDomains;
  return (
    <DashboardShell account={account}>
      <h1>Domains</h1>
      <section className="card" aria-labelledby="custom-domains-title">
        <h2 id="custom-domains-title">Custom domains</h2>
        {max === 0 ? (
          <p className="muted">
            Serve a drop at your own hostname (e.g. docs.example.com): custom domains are part of the{" "}
            <Link href="/dashboard/billing">Team plan</Link>.
          </p>
        ) : (
          <p className="muted">
            {domains.length} of {max}. Add a domain on the page of the drop it should serve.
          </p>
        )}
        {domains.length > 0 && (
          <Table className="files-table stack" testId="account-domains" columns={["Hostname", "Drop", "Status"]}>
            {domains.map((d) => (
              <tr key={d.hostname}>
                <td className="primary">
                  <code>{d.hostname}</code>
                </td>
                <td data-label="Drop">
                  <Link href={`/dashboard/drops/${d.slug}#domains-title`}>{d.slug}</Link>
                </td>
                <td data-label="Status">
                  <span className={`badge ${d.status === "active" ? "live" : "expired"}`}>
                    {d.status === "active" ? "Active" : "Waiting for DNS"}
                  </span>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section className="card" aria-labelledby="vanity-title">
        <h2 id="vanity-title">Vanity subdomain</h2>
        {account.plan === "team" ? (
          <VanityPanel
            sub={account.vanitySub}
            serveExample={`${publicScheme(ctx.env)}://<sub>--<name>.${ctx.env.SERVE_DOMAIN}/`}
          />
        ) : (
          <p className="muted">Team accounts serve named drops at their own subdomain.</p>
        )}
      </section>
    </DashboardShell>
  );
}
