import type { DropStats } from "@/lib/schemas";
import { bytes } from "./format";
import { ScrollRegion } from "./ScrollRegion";

// A drop's counts on its dashboard page (issue 40): daily views and visitors drawn as an SVG
// chart, and the same numbers in a table beside it that screen readers and keyboards reach (the
// chart itself is one image named by its caption); then the top paths, referrers and countries.
// A server component: nothing here runs in the browser.

const W = 560;
const H = 160;
const PAD = { top: 12, right: 8, bottom: 22, left: 36 };

function Chart({ days, titleId }: { days: DropStats["days"]; titleId: string }) {
  const max = Math.max(1, ...days.map((d) => Math.max(d.views, d.visitors)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(1, days.length);
  const barW = Math.max(2, step * 0.6);
  const y = (n: number) => PAD.top + innerH - (n / max) * innerH;
  const x = (i: number) => PAD.left + step * i + step / 2;
  const line = days.map((d, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(d.visitors).toFixed(1)}`).join(" ");
  const labelEvery = Math.max(1, Math.ceil(days.length / 7));
  return (
    <svg
      className="stats-chart"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-labelledby={titleId}
      data-testid="stats-chart"
      style={{ width: "100%", height: "auto", maxWidth: `${W}px` }}
    >
      <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} stroke="currentColor" strokeOpacity="0.4" />
      <text x={PAD.left - 4} y={y(max) + 4} textAnchor="end" fontSize="10" fill="currentColor">
        {max}
      </text>
      <text x={PAD.left - 4} y={y(0)} textAnchor="end" fontSize="10" fill="currentColor">
        0
      </text>
      {days.map((d, i) => (
        <rect
          key={d.date}
          x={x(i) - barW / 2}
          y={y(d.views)}
          width={barW}
          height={Math.max(0, y(0) - y(d.views))}
          fill="var(--accent)"
          fillOpacity="0.7"
        >
          <title>{`${d.date}: ${d.views} views, ${d.visitors} visitors`}</title>
        </rect>
      ))}
      <path d={line} fill="none" stroke="currentColor" strokeWidth="2" />
      {days.map((d, i) =>
        i % labelEvery === 0 ? (
          <text key={d.date} x={x(i)} y={H - 6} textAnchor="middle" fontSize="10" fill="currentColor">
            {d.date.slice(5)}
          </text>
        ) : null,
      )}
    </svg>
  );
}

function Top({ title, head, rows }: { title: string; head: string; rows: [string, number][] }) {
  return (
    <div className="table-wrap">
      <table className="files-table">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{head}</th>
            <th scope="col">Views</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={2} className="muted">
                None yet
              </td>
            </tr>
          ) : (
            rows.map(([k, n]) => (
              <tr key={k}>
                <td>{k}</td>
                <td className="num">{n}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The drop's counts: the chart, its table, and the top lists. */
export function StatsChart({ stats }: { stats: DropStats }) {
  const t = stats.totals;
  const titleId = "stats-chart-title";
  return (
    <section className="card" aria-labelledby="stats-title" data-testid="drop-stats">
      <h2 id="stats-title">Visits</h2>
      <p className="muted">
        {stats.from} to {stats.to} (UTC): {t.views} views ({t.preview_views} on preview hosts) by {t.visitors} visitors,{" "}
        {t.requests} other requests, {bytes(t.bytes)} sent, {t.not_found} not found. Apart from these: {t.bot_requests}{" "}
        bot requests and {t.previews} link previews. Counted without scripts or cookies; updated within 15 seconds.
      </p>
      <p id={titleId} className="visually-hidden">
        Chart of daily views (bars) and visitors (line); the table below gives the same numbers.
      </p>
      <Chart days={stats.days} titleId={titleId} />
      <ScrollRegion label="Views and visitors per day">
        <table className="files-table" data-testid="stats-table">
          <caption className="visually-hidden">Views and visitors per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Views</th>
              <th scope="col">On previews</th>
              <th scope="col">Visitors</th>
              <th scope="col">Requests</th>
              <th scope="col">Sent</th>
              <th scope="col">Not found</th>
            </tr>
          </thead>
          <tbody>
            {stats.days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                <td className="num">{d.views}</td>
                <td className="num">{d.preview_views}</td>
                <td className="num">{d.visitors}</td>
                <td className="num">{d.requests}</td>
                <td className="num">{bytes(d.bytes)}</td>
                <td className="num">{d.not_found}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <Top title="Top paths" head="Path" rows={stats.paths.map((p) => [p.path, p.views])} />
      <Top title="Top referrers" head="Referrer" rows={stats.referrers.map((r) => [r.host, r.views])} />
      {stats.countries.length > 0 && (
        <Top title="Countries" head="Country" rows={stats.countries.map((c) => [c.code, c.views])} />
      )}
    </section>
  );
}
