import { CLAIM_GRACE_SECONDS, limits, plans } from "@/lib/plans";

const MB = 1024 * 1024;
const days = (s: number | null) => (s === null ? "never expire" : `${Math.round(s / 86400)} days`);

// The pricing table, rendered from the plan table in code.
export function Pricing() {
  return (
    <section id="pricing" aria-labelledby="pricing-title">
      <h2 id="pricing-title">Pricing</h2>
      <div className="plans">
        {plans.map((plan) => {
          const l = limits[plan];
          return (
            <article key={plan} className="plan" data-testid={`plan-${plan}`}>
              <h3>{plan[0]!.toUpperCase() + plan.slice(1)}</h3>
              <p className="price">
                ${l.priceUsd ?? 0}
                <span className="muted">/month</span>
              </p>
              <ul>
                <li>{l.filesPerRequest} files per deploy</li>
                <li>
                  {l.zipBytes / MB} MB zips, {l.fileBytes / MB} MB per file, {l.dropBytes / MB} MB per drop
                </li>
                <li>
                  Drops{" "}
                  {l.ttlDefaultSeconds === null
                    ? "never expire by default"
                    : `last ${days(l.ttlDefaultSeconds)} by default`}
                </li>
                <li>Up to {l.maxDrops?.toLocaleString("en-US")} drops</li>
                {l.namedDrops && <li>Named drops with stable URLs</li>}
                {l.append && <li>Append files to a drop</li>}
                {l.vanity && <li>Your own subdomain</li>}
                {l.maxDomains > 0 && <li>Up to {l.maxDomains} custom domains with HTTPS</li>}
              </ul>
            </article>
          );
        })}
      </div>
      <p className="muted">
        Anonymous deploys need no account: {limits.anonymous.filesPerRequest} files, online for{" "}
        {days(limits.anonymous.ttlDefaultSeconds)}, then claimable for {days(CLAIM_GRACE_SECONDS)} more.
      </p>
    </section>
  );
}
