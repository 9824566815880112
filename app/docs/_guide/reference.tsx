import { limits } from "@/lib/plans";
import { tools } from "@/lib/mcp/tools";
import { CodeBlock } from "../../_components/CodeBlock";
import { allDocs } from "../_markdown/files";
import { count, inDays, mb } from "./format";
import { DocLink, Section, Sub } from "./parts";
import { ErrorsTable, LimitsTable, RateLimitsTable } from "./tables";
import type { GuideProps } from "./guide";

// The guide's reference: limits, plans, errors, MCP, device authorisation, the CLI, OpenAPI,
// self-hosting, Vercel and all documents.

const free = limits.free;
const paid = limits.pro;

/** The first sentence of a doc's first paragraph: what the list says about it. */
const firstSentence = (text: string) => /^.*?[.:](?=\s|$)/.exec(text)?.[0] ?? text;

export function ReferenceSections({ base, serveHost, rates }: GuideProps) {
  return (
    <>
      <Section id="limits" title="Limits">
        <p>
          <code>GET /limits</code> answers the limits that apply to the caller (anonymous without a credential). The
          same table drives the checks:
        </p>
        <LimitsTable />
        <Sub id="rate-limits" title="Rate limits">
          <p>
            Each limit counts one kind of request in a sliding window; every 429 carries <code>Retry-After</code>.
          </p>
          <RateLimitsTable rates={rates} />
        </Sub>
      </Section>

      <Section id="plans" title="Plans and billing">
        <p>
          <strong>free</strong>: an account, drops up to {inDays(free.ttlMaxSeconds ?? 0)}, listing and keys.{" "}
          <strong>pro</strong> (${limits.pro.priceUsd}/month): named drops, append, no expiry,{" "}
          {count(paid.filesPerRequest)} files per request, {mb(paid.zipBytes)} zips. <strong>team</strong> ($
          {limits.team.priceUsd}/month): pro plus a vanity subdomain. Errors a paid plan would lift carry{" "}
          <code>upgrade_url</code>.
        </p>
        <Sub id="billing" title="Billing">
          <p>
            <code>POST /billing/checkout</code> (optional <code>{`{"plan": "pro" | "team"}`}</code>) answers a{" "}
            <code>url</code> to send the user to; <code>POST /billing/portal</code> opens the customer portal;{" "}
            <code>GET /billing/me</code> shows plan and subscription state. A server without payment configuration
            answers 503 <code>upstream_unavailable</code>. The flow, downgrades and plans without Stripe:{" "}
            <DocLink to="billing">billing</DocLink>.
          </p>
        </Sub>
      </Section>

      <Section id="errors" title="Errors">
        <p>
          Every error body is one envelope; parse <code>code</code>, show <code>hint</code> to the person (agents relay
          it verbatim):
        </p>
        <CodeBlock>{`{"error": "…", "code": "file_cap_exceeded", "hint": "…", "upgrade_url": "${base}/#pricing", "docs_url": "${base}/docs#limits"}`}</CodeBlock>
        <ErrorsTable />
      </Section>

      <Section id="mcp" title="MCP for agents">
        <p>
          <code>POST {base}/mcp</code> is the MCP endpoint (configuration in the <a href="#quick-start">quick start</a>
          ). Tools:{" "}
          {tools.map((t, i) => (
            <span key={t.name}>
              {i > 0 && ", "}
              <code>{t.name}</code>
            </span>
          ))}
          . With <code>Authorization: Bearer sp_…</code> the tools act as your account; without it, deploys are
          anonymous. A tool that fails returns <code>isError: true</code> with the error envelope, hint included.
          Connecting an agent, OAuth, each tool and the error model: <DocLink to="mcp">the MCP guide</DocLink>.
        </p>
      </Section>

      <Section id="device-authorization" title="Device authorisation (agents without a key)">
        <p>
          An agent without a key calls <code>POST {base}/device/authorize</code> (or the MCP tool{" "}
          <code>device_authorize</code>), shows the person the verification URL and code, and polls{" "}
          <code>POST {base}/device/token</code> every <code>interval</code> seconds (<code>authorization_pending</code>,{" "}
          <code>slow_down</code>, then <code>expired_token</code> or <code>access_denied</code>) until the approval
          returns a new <code>sp_</code> key, once. Anonymous drops can be claimed in the same approval. The steps:{" "}
          <DocLink to="mcp#device-authorisation-an-agent-without-a-key">device authorisation</DocLink>.
        </p>
      </Section>

      <Section id="cli" title="Command-line client">
        <CodeBlock>{`export DROP_API_URL=${base}
npx dropsite login --key sp_…
npx dropsite deploy ./site
npx dropsite list | delete <slug> | limits | logout      # --json for machine-readable output`}</CodeBlock>
        <p>
          Every command, its options and exit codes: <DocLink to="cli">the command-line client</DocLink>.
        </p>
      </Section>

      <Section id="openapi" title="OpenAPI">
        <p>
          <a href="/openapi.json">/openapi.json</a> is an OpenAPI 3.1 document (version 1.0.0) generated from the same
          schemas that validate requests: every endpoint, parameter bounds, the error envelope for each status and both
          Bearer schemes.{" "}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- /docs/api is a route handler (Scalar's HTML), not a page: a full navigation */}
          <a href="/docs/api">/docs/api</a> renders it as an interactive reference that can send test requests to this
          server.
        </p>
      </Section>

      <Section id="self-hosting" title="Self-hosting">
        <p>
          From a fresh clone of the repository, with Node.js 20.9 or newer; it runs with no accounts anywhere: embedded
          PostgreSQL (PGlite) and files under <code>DATA_DIR</code>, in-process rate limits.
        </p>
        <CodeBlock>{`npm install && npm run build && npm start   # http://localhost:3000, data in .data/
BASE_URL=https://drop.example.com SERVE_DOMAIN=drops.example.com npm start
npm run admin -- set-plan you@example.com pro   # plans without a payment provider (stop the server first with PGlite)
npm run cleanup                                 # purge expired drops (or GET /cron/cleanup with CRON_SECRET)`}</CodeBlock>
        <p>
          Point a wildcard DNS record for the serve domain&apos;s host, <code>*.{serveHost}</code>, at the server (DNS
          has no ports; the port of <code>SERVE_DOMAIN</code>, if any, is where the server listens). Drops are only ever
          served from drop hosts, never from the app&apos;s own origin. Production parts switch on by their variables:{" "}
          <code>DATABASE_URL</code>, <code>BLOB_READ_WRITE_TOKEN</code>, <code>UPSTASH_REDIS_REST_URL</code>/
          <code>_TOKEN</code>, <code>STRIPE_*</code>, <code>GOOGLE_CLIENT_ID</code> or <code>OIDC_ISSUER</code>/
          <code>OIDC_CLIENT_ID</code>, <code>CRON_SECRET</code>, <code>TRUST_PROXY</code> behind a proxy.
        </p>
      </Section>

      <Section id="vercel" title="Deploying on Vercel">
        <p>
          With Neon, Blob, Upstash, Stripe and a login provider, and the wildcard <code>*.{serveHost}</code> added to
          the project: <DocLink to="deploy-vercel">deploying to Vercel</DocLink>.
        </p>
      </Section>

      <Section id="documents" title="All documents">
        <p>The project&apos;s written docs, each rendered from its Markdown file:</p>
        <ul>
          {allDocs().map((d) => (
            <li key={d.name}>
              <DocLink to={d.name}>{d.title}</DocLink>: {firstSentence(d.summary)}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
