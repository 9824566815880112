import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { sessionCaller } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { owningTeam } from "@/lib/drops/access";
import { getDrop } from "@/lib/drops/manage";
import { listDropVersions } from "@/lib/drops/versions";
import { listDropAliases } from "@/lib/drops/aliases";
import { can } from "@/lib/teams/roles";
import { ApiError } from "@/lib/errors";
import { ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS, isPaid, limits } from "@/lib/plans";
import { AccessPanel } from "../../access-panel";
import { DomainsPanel } from "../../domains-panel";
import { listDomains } from "@/lib/domains/manage";
import { bytes, dateTime, dropState, relative } from "../../../_components/format";
import { DropActions } from "../../drop-actions";
import { Expiry } from "../../expiry";
import { StateBadge } from "../../state-badge";
import { Table } from "../../table";
import { VersionsPanel } from "../../versions-panel";
import { AliasesPanel } from "../../aliases-panel";
import { DropZone } from "../../../_components/DropZone";
import { hasSiteRules, plural, SiteRules } from "../../../_components/SiteRules";
import { Notice } from "../../../_components/ui";
import { DashboardShell } from "../../shell";
import { previewBlocker } from "../../preview";
import { StatsChart } from "../../../_components/StatsChart";
import { RenderCheckPanel } from "../../../_components/RenderCheckPanel";
import { getDropStats } from "@/lib/stats/read";

/** The drop page's sections, in order, for its table of contents (each id is its heading's; site rules only when it has some). */
const SECTIONS = [
  { id: "overview-title", label: "Overview" },
  { id: "files-title", label: "Files and preview" },
  { id: "versions-title", label: "Versions" },
  { id: "aliases-title", label: "Aliases" },
  { id: "access-title", label: "Access" },
  { id: "domains-title", label: "Custom domains" },
  { id: "rules-title", label: "Site rules" },
  { id: "stats-title", label: "Visits" },
  { id: "render-check-title", label: "Render check" },
] as const;

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Drop · dropsite" };

// One drop of the session's account: its files and sizes, a live preview served from the drop's
// own origin (never the app's), copy and delete, and redeploy by dropping a folder for named drops.
export default async function DropPage({ params }: { params: Promise<{ slug: string }> }) {
  const caller = await sessionCaller();
  if (!caller) redirect("/login");
  const ctx = await getContext();
  const { slug } = await params;
  const drop = await getDrop(ctx, caller.account, slug).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === "not_found") notFound();
    throw err;
  });
  const versions = await listDropVersions(ctx, caller.account, drop.slug, { limit: 100, offset: 0 });
  const aliases = await listDropAliases(ctx, caller.account, drop.slug);
  const stats = await getDropStats(ctx, caller.account, drop.slug, {});
  const domains = (await listDomains(ctx, caller.account)).domains.filter((d) => d.slug === drop.slug);
  const now = ctx.now();
  const blocker = previewBlocker(drop, dropState(drop.expires_at, now), caller.account.suspendedAt !== null);
  // Why versions and aliases are shown but not changed here: a disabled drop refuses writes, and
  // a team's viewers may look only (the same refusals the routes give, said before the click).
  const writeBlock = drop.disabled
    ? `An operator has disabled this drop (${drop.disabled.reason}): its live version and aliases cannot change. You can still delete it, or appeal with the report form.`
    : caller.team && !can(caller.team.role, "deploy")
      ? `Your role in this team (${caller.team.role}) shows versions and aliases; members and above change them.`
      : null;
  const redeploy = drop.name !== null && isPaid(caller.account.plan) ? drop.name : null;
  return (
    <DashboardShell account={caller.account}>
      <p className="muted">
        <Link href="/dashboard">← Drops</Link>
      </p>
      <div className="drop-layout">
        <nav className="drop-toc" aria-label="On this page">
          <ul>
            {SECTIONS.filter((s) => s.id !== "rules-title" || hasSiteRules(drop)).map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`}>{s.label}</a>
              </li>
            ))}
            {redeploy && (
              <li>
                <a href="#redeploy-title">Redeploy</a>
              </li>
            )}
          </ul>
        </nav>
        <div className="drop-sections">
          <section aria-labelledby="overview-title">
            <h1 className="drop-title" id="overview-title">
              {drop.name ?? drop.slug} <StateBadge expiresAt={drop.expires_at} now={now} access={drop.access} />
            </h1>
            <p className="result-url">
              <a href={drop.url} target="_blank" rel="noopener" data-testid="drop-url">
                {drop.url}
              </a>
            </p>
            <DropActions slug={drop.slug} url={drop.url} name={drop.name} />
            <dl className="facts">
              <dt>Expires</dt>
              <dd>
                <Expiry iso={drop.expires_at} now={now} />
                {drop.expires_at && <span className="muted"> ({dateTime(drop.expires_at)})</span>}
              </dd>
              <dt>Updated</dt>
              <dd>
                <time dateTime={drop.updated_at} title={dateTime(drop.updated_at)}>
                  {relative(drop.updated_at, now)}
                </time>
                {drop.redeploy_count > 0 && <span className="muted"> · redeployed {drop.redeploy_count}×</span>}
              </dd>
              <dt>Access</dt>
              <dd>{drop.access === "password" ? "Password-protected" : "Public"}</dd>
              <dt>Size</dt>
              <dd>
                {drop.file_count} {drop.file_count === 1 ? "file" : "files"}, {bytes(drop.total_bytes)}
              </dd>
              <dt>Site rules</dt>
              <dd data-testid="rule-counts">
                {plural(drop.redirect_rules, "redirect rule")}, {plural(drop.header_rules, "header rule")}
              </dd>
            </dl>
          </section>
          <div className="drop-columns">
            <section className="card" aria-labelledby="files-title">
              <h2 id="files-title">Files</h2>
              {drop.files_truncated && (
                <p className="muted">
                  The first {drop.files.length.toLocaleString("en-US")} of {drop.file_count.toLocaleString("en-US")}{" "}
                  files, by path.
                </p>
              )}
              <Table className="files-table" testId="drop-files" columns={["Path", "Size"]}>
                {drop.files.map((f) => (
                  <tr key={f.path}>
                    <td>
                      <a
                        href={new URL(f.path.split("/").map(encodeURIComponent).join("/"), drop.url).href}
                        target="_blank"
                        rel="noopener"
                      >
                        {f.path}
                      </a>
                    </td>
                    <td className="num">{bytes(f.size)}</td>
                  </tr>
                ))}
              </Table>
            </section>
            <section className="card preview" aria-labelledby="preview-title">
              <h2 id="preview-title">Preview</h2>
              {blocker ? (
                <Notice testId="preview-blocked">
                  <p>{blocker}</p>
                </Notice>
              ) : (
                <iframe
                  src={drop.url}
                  title={`Preview of ${drop.url}`}
                  data-testid="drop-preview"
                  referrerPolicy="no-referrer"
                  sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
                />
              )}
            </section>
          </div>
          <section className="card" aria-labelledby="versions-title">
            <h2 id="versions-title">Versions</h2>
            <p className="muted">
              Live: version {versions.live_version}. {versions.total}{" "}
              {versions.total === 1 ? "version is" : "versions are"} kept, each at its own address (a preview that
              search engines do not index); &ldquo;Make live&rdquo; serves an older or newer one at once.
            </p>
            <VersionsPanel
              slug={drop.slug}
              url={drop.url}
              versions={versions.versions}
              now={now}
              blocked={writeBlock}
            />
          </section>
          <AliasesPanel
            slug={drop.slug}
            aliases={aliases.aliases}
            versions={versions.versions.map((v) => v.version)}
            live={versions.live_version}
            max={limits[caller.account.plan].aliasesPerDrop}
            now={now}
            blocked={writeBlock}
          />
          <AccessPanel
            slug={drop.slug}
            mode={drop.access}
            team={(await owningTeam(ctx, caller.account))?.name ?? null}
            minChars={ACCESS_PASSWORD_MIN_CHARS}
            maxChars={ACCESS_PASSWORD_MAX_CHARS}
          />
          <DomainsPanel
            slug={drop.slug}
            domains={domains}
            allowed={limits[caller.account.plan].maxDomains > 0}
            max={limits[caller.account.plan].maxDomains}
          />
          <SiteRules drop={drop} />
          <StatsChart stats={stats} />
          <RenderCheckPanel ctx={ctx} account={caller.account} slug={drop.slug} />
          {redeploy && (
            <section className="card" aria-labelledby="redeploy-title">
              <h2 id="redeploy-title">Redeploy</h2>
              <p className="muted">
                Drop a folder, a zip or an HTML file: it replaces the content of {redeploy} and keeps its URL.
              </p>
              <DropZone endpoint="/dashboard/upload" preflightEndpoint="/dashboard/preflight" name={redeploy} />
            </section>
          )}
        </div>
      </div>
    </DashboardShell>
  );
}
