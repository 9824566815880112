import type { Metadata } from "next";
import { env } from "@/lib/env";
import { ratePolicies } from "@/lib/ratelimit/policy";
import { DeployingSections } from "./_guide/deploying";
import { FeatureSections } from "./_guide/features";
import { ReferenceSections } from "./_guide/reference";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "dropsite docs" };

// The human docs. Error envelopes link here by anchor (docs_url = BASE_URL/docs#<anchor>); every
// `docs: "<anchor>"` in lib/ and app/ must exist as an id below (tests/integration/docs-links).
// This page is the guide with this server's addresses and the tables' numbers; what docs/*.md
// explains at length is rendered from the files at /docs/<name> and linked, not restated here.
// The sections live in ./_guide/ (deploying.tsx, features.tsx, reference.tsx), in the order below.

const toc: [string, string][] = [
  ["quick-start", "Quick start"],
  ["deploy", "Deploying"],
  ["authentication", "Authentication"],
  ["keys", "API keys"],
  ["list-drops", "Listing and deleting drops"],
  ["claiming", "Claiming anonymous drops"],
  ["named-drops", "Named drops"],
  ["append", "Append"],
  ["site-rules", "Redirects and headers"],
  ["vanity", "Vanity hosts"],
  ["teams", "Teams"],
  ["webhooks", "Webhooks"],
  ["domains", "Custom domains"],
  ["limits", "Limits"],
  ["plans", "Plans and billing"],
  ["errors", "Errors"],
  ["mcp", "MCP for agents"],
  ["device-authorization", "Device authorisation"],
  ["cli", "Command-line client"],
  ["openapi", "OpenAPI"],
  ["self-hosting", "Self-hosting"],
  ["vercel", "Deploying on Vercel"],
  ["documents", "All documents"],
];

export default function DocsPage() {
  const e = env();
  const base = e.BASE_URL;
  const scheme = new URL(base).protocol.replace(":", "");
  const serve = e.SERVE_DOMAIN;
  const rates = ratePolicies(e);
  const serveHost = serve.replace(/:\d+$/, "");
  const mcpConfig = JSON.stringify(
    { mcpServers: { dropsite: { type: "http", url: `${base}/mcp`, headers: { Authorization: "Bearer sp_..." } } } },
    null,
    2,
  );
  const guide = { base, scheme, serve, serveHost, rates, mcpConfig };
  return (
    <main className="docs">
      <header>
        <p className="docs-kicker">Docs · API version 1.0.0</p>
        <h1>Publish static content with one request</h1>
        <p>
          Send HTML, a JSON map of files or a zip to <code>{base}/deploy</code>; get back an unguessable URL of the
          shape <code>{`${scheme}://<slug>.${serve}/`}</code> that serves it. No account is needed to start. Every
          endpoint with its parameters, bodies, examples and errors is in the interactive reference at{" "}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- /docs/api is a route handler (Scalar's HTML), not a page: a full navigation */}
          <a href="/docs/api">/docs/api</a>; the machine-readable description is{" "}
          <a href="/openapi.json">/openapi.json</a>.
        </p>
        <nav aria-label="Contents" className="docs-toc">
          <ol>
            {toc.map(([id, title]) => (
              <li key={id}>
                <a href={`#${id}`}>{title}</a>
              </li>
            ))}
          </ol>
        </nav>
      </header>

      <DeployingSections {...guide} />
      <FeatureSections {...guide} />
      <ReferenceSections {...guide} />
    </main>
  );
}
