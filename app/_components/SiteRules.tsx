import type { DropDetail } from "@/lib/schemas";

export const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`;

// The drop's _redirects and _headers as parsed at deploy, in file order (what the drop serves with).
/** Whether the drop page has a Site rules section (and its table of contents a link to it). */
export function hasSiteRules(drop: Pick<DropDetail, "rules">): boolean {
  return drop.rules.redirects.length + drop.rules.headers.length > 0;
}

export function SiteRules({ drop }: { drop: DropDetail }) {
  const { redirects, headers } = drop.rules;
  if (!hasSiteRules(drop)) return null;
  return (
    <section className="card" aria-labelledby="rules-title" data-testid="site-rules">
      <h2 id="rules-title">Site rules</h2>
      <p className="muted">
        From the drop&apos;s <code>_redirects</code> and <code>_headers</code>, in the order they apply (the first
        matching redirect wins; headers of every matching path combine).
      </p>
      {redirects.length > 0 && (
        <div className="table-wrap">
          <table className="files-table rules-table">
            <caption>Redirects and rewrites ({plural(redirects.length, "rule")})</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {redirects.map((r) => (
                <tr key={r.line}>
                  <td className="num">{r.line}</td>
                  <td>
                    <code>{r.from}</code>
                  </td>
                  <td>
                    <code>{r.to}</code>
                  </td>
                  <td>
                    {r.status}
                    {r.force && <abbr title="forced: applies even when a file answers the path">!</abbr>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {headers.length > 0 && (
        <div className="table-wrap">
          <table className="files-table rules-table">
            <caption>Headers ({plural(headers.length, "path")})</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Path</th>
                <th scope="col">Headers</th>
              </tr>
            </thead>
            <tbody>
              {headers.map((h) => (
                <tr key={h.line}>
                  <td className="num">{h.line}</td>
                  <td>
                    <code>{h.path}</code>
                  </td>
                  <td>
                    <ul className="plain">
                      {h.headers.map((x, i) => (
                        <li key={i}>
                          <code>
                            {x.name}: {x.value}
                          </code>
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
