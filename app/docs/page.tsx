import type { Metadata } from "next";
import { env } from "@/lib/env";
import { describeRate, ratePolicies } from "@/lib/ratelimit/policy";
import {
  ACCESS_PASSWORD_MAX_CHARS,
  ACCESS_PASSWORD_MIN_CHARS,
  ACCESS_UNLOCK_SECONDS,
  APP_UPLOAD_MAX_BYTES,
  CLAIM_GRACE_SECONDS,
  DEPLOY_GRANT_SECONDS,
  DOMAIN_TXT_GRACE_SECONDS,
  IDEMPOTENCY_SECONDS,
  LARGE_FILE_WARNING_BYTES,
  limits,
  WEBHOOK_RETRY_SECONDS,
  WEBHOOK_TIMEOUT_SECONDS,
} from "@/lib/plans";
import { WEBHOOK_EVENTS } from "@/lib/patterns";
import { tools } from "@/lib/mcp/tools";
import { CodeBlock } from "../_components/CodeBlock";
import { allDocs } from "./_markdown/files";
import { count, inDays, mb, num } from "./_guide/format";
import { DocLink, Section, Sub } from "./_guide/parts";
import { ErrorsTable, LimitsTable, RateLimitsTable } from "./_guide/tables";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "dropsite docs" };

/** The first sentence of a doc's first paragraph: what the list says about it. */
const firstSentence = (text: string) => /^.*?[.:](?=\s|$)/.exec(text)?.[0] ?? text;

// The human docs. Error envelopes link here by anchor (docs_url = BASE_URL/docs#<anchor>); every
// `docs: "<anchor>"` in lib/ and app/ must exist as an id below (tests/integration/docs-links).
// This page is the guide with this server's addresses and the tables' numbers; what docs/*.md
// explains at length is rendered from the files at /docs/<name> and linked, not restated here.

// Every number in this page's prose comes from the plan table (lib/plans.ts) or the limiter's
// constants, so the docs cannot drift from what the service enforces.
const anon = limits.anonymous;
const free = limits.free;
const paid = limits.pro;

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

      <Section id="quick-start" title="Quick start">
        <p>One HTML page:</p>
        <CodeBlock>{`curl --data-binary @index.html -H 'content-type: text/html' ${base}/deploy`}</CodeBlock>
        <p>Several files as JSON (text as strings, binary as base64):</p>
        <CodeBlock>{`curl -H 'content-type: application/json' ${base}/deploy --data '{
  "files": {
    "index.html": "<h1>Hello</h1><img src=\\"logo.png\\">",
    "logo.png": {"encoding": "base64", "content": "iVBORw0KGgo..."}
  }
}'`}</CodeBlock>
        <p>A whole site as a zip:</p>
        <CodeBlock>{`cd site && zip -r ../site.zip . && cd ..
curl --data-binary @site.zip -H 'content-type: application/zip' ${base}/deploy`}</CodeBlock>
        <p>The answer carries the URL:</p>
        <CodeBlock>{`{"slug": "k3x9…", "url": "${scheme}://k3x9….${serve}/", "files": ["index.html"], "plan": "free",
 "expires_at": "…", "claim_token": "…"}`}</CodeBlock>
        <p>
          Anonymous drops live {inDays(anon.ttlDefaultSeconds ?? 0)}; keep the <code>claim_token</code> to move one into
          your account later (<a href="#claiming">claiming</a>). Or use the <a href="#cli">command-line client</a>:{" "}
          <code>npx dropsite deploy ./site</code>.
        </p>
        <p>
          For an AI agent, add the MCP endpoint to its configuration (the key is optional; without it deploys are
          anonymous):
        </p>
        <CodeBlock>{mcpConfig}</CodeBlock>
      </Section>

      <Section id="deploy" title="Deploying">
        <p>
          <code>POST /deploy</code> creates a drop. The body form is chosen by <code>Content-Type</code>; the body is
          required.
        </p>
        <table>
          <thead>
            <tr>
              <th>Content-Type</th>
              <th>Body</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <code>text/html</code> (or any type that is neither JSON nor zip)
              </td>
              <td>
                stored as <code>index.html</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>application/json</code>
              </td>
              <td>
                FilesBody:{" "}
                <code>{`{"files": {"<path>": "<text>" | {"encoding": "base64", "content": "<base64>"}}}`}</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>application/zip</code>
              </td>
              <td>the archive, unpacked (see below)</td>
            </tr>
          </tbody>
        </table>
        <p>
          Query parameters: <a href="#ttl">ttl</a> and <a href="#named-drops">name</a>. With a Bearer credential the
          drop belongs to your account. The response is a DeployResponse:{" "}
          <code>slug, url, files, plan, expires_at</code>, plus <code>name</code> and <code>replaced</code> for named
          drops and <code>claim_token</code> for anonymous ones.
        </p>
        <p>
          Serving: <code>/</code> and paths ending in <code>/</code> serve that folder&apos;s <code>index.html</code>;{" "}
          <code>/about</code> serves <code>about.html</code> or <code>about/index.html</code>; a missing path serves
          your <code>404.html</code> with status 404 when you have one. Content types come from file extensions; ETags,
          ranges and HEAD work on every file.
        </p>
        <Sub id="paths" title="File paths">
          <p>
            Paths are relative POSIX paths such as <code>index.html</code> or <code>assets/app.js</code>. Refused with{" "}
            <code>invalid_request</code>: absolute paths, <code>..</code> segments, backslashes, control characters
            (including NUL), empty segments, reserved names (<code>__proto__</code>, <code>prototype</code>,{" "}
            <code>constructor</code>), paths over 1024 characters and duplicates after normalisation (<code>./a</code>{" "}
            and <code>a</code> are the same file).
          </p>
        </Sub>
        <Sub id="zip" title="Zip archives">
          <p>
            Standard zip archives (deflate or stored entries, no encryption). A single top-level folder is stripped
            automatically, so zipping the folder <code>site/</code> or its contents gives the same drop. Symlink entries
            are refused (<code>invalid_zip</code>). Unpacked size may be at most {paid.decompressionRatio} times the
            archive (<code>payload_too_large</code>).
          </p>
        </Sub>
        <Sub id="ttl" title="Lifetime (ttl)">
          <p>
            <code>?ttl=&lt;seconds&gt;</code>, minimum {anon.ttlMinSeconds}. Anonymous drops: at most{" "}
            {inDays(anon.ttlMaxSeconds ?? 0)}, the default. Free accounts: at most {free.ttlMaxSeconds} (
            {inDays(free.ttlMaxSeconds ?? 0)}), the default. Subscribers: any value, and without ttl their drops never
            expire (<code>expires_at: null</code>). An expired drop answers 410 to visitors and is purged by the cleanup
            job.
          </p>
          <CodeBlock>{`curl --data-binary @index.html -H 'content-type: text/html' '${base}/deploy?ttl=3600'`}</CodeBlock>
        </Sub>
      </Section>

      <Section id="authentication" title="Authentication">
        <p>
          Send <code>Authorization: Bearer &lt;credential&gt;</code>. Two kinds of credential work wherever an account
          is needed:
        </p>
        <ul>
          <li>
            <strong>API keys</strong> (<code>sp_</code> + 43 characters): long-lived, for scripts, CI and agents. Every
            key is account-wide.
          </li>
          <li>
            <strong>ID tokens</strong> from the identity provider you log in with (RS256, issuer and audience checked,
            at most one hour old). The only credential that can mint keys.
          </li>
        </ul>
        <p>
          A missing, malformed, revoked or expired credential on an account route answers 401 <code>auth_required</code>
          ; a wrong key looks exactly like no key. Another account&apos;s drops and keys answer 404 as if absent.
        </p>
      </Section>

      <Section id="keys" title="API keys">
        <p>
          Mint keys on the dashboard after logging in, or with your ID token: <code>POST /keys</code> (optional JSON{" "}
          <code>{`{"note": "ci"}`}</code>) answers 201 with <code>apiKey</code>, shown once, and <code>keyId</code>, the
          SHA-256 of the key, safe to log. Only the hash is stored: a lost key cannot be recovered, only replaced.
        </p>
        <CodeBlock>{`curl -X POST -H "authorization: Bearer $ID_TOKEN" ${base}/keys
curl -H "authorization: Bearer $DROP_API_KEY" ${base}/keys            # {keys: [{keyId, prefix, note, createdAt, lastUsedAt}]}
curl -X DELETE -H "authorization: Bearer $DROP_API_KEY" ${base}/keys/<keyId>   # {revoked: keyId}`}</CodeBlock>
        <p>
          Revocation is instant. To rotate, mint the replacement first, switch your clients, then revoke the old key. At
          most {free.maxKeys} live keys per account; minting is limited to {describeRate(rates.keyMint)} per account.
        </p>
      </Section>

      <Section id="list-drops" title="Listing and deleting drops">
        <CodeBlock>{`curl -H "authorization: Bearer $DROP_API_KEY" '${base}/drops?limit=100&offset=0'
curl -X DELETE -H "authorization: Bearer $DROP_API_KEY" ${base}/drops/<slug>`}</CodeBlock>
        <p>
          <code>GET /drops</code> answers <code>{`{total, drops: [...]}`}</code>, newest first; <code>limit</code> is 1
          to 500 (default 100), <code>offset</code> at least 0. Deleting purges the files and the index entry at once (
          <code>{`{deleted: slug}`}</code>); edge caches may serve the drop for up to 60 seconds more.
        </p>
      </Section>

      <Section id="claiming" title="Claiming anonymous drops">
        <p>
          An anonymous deploy returns a one-time <code>claim_token</code>. Log in, then:
        </p>
        <CodeBlock>{`curl -X POST -H "authorization: Bearer $DROP_API_KEY" -H 'content-type: application/json' \\
  ${base}/claim --data '{"slug": "<slug>", "claim_token": "<claim_token>"}'`}</CodeBlock>
        <p>
          The drop joins your account and takes your plan&apos;s defaults: no expiry for subscribers,{" "}
          {inDays(free.ttlDefaultSeconds ?? 0)} from the claim on the free plan. Anonymous drops serve for{" "}
          {inDays(anon.ttlDefaultSeconds ?? 0)}, then stay offline but claimable for {inDays(CLAIM_GRACE_SECONDS)} more
          days (claiming brings one back online); after that they are purged and the claim answers 410 <code>gone</code>
          . A wrong or used token answers 404.
        </p>
      </Section>

      <Section id="named-drops" title="Named drops">
        <p>
          Subscribers can give a drop a stable name, scoped to the account: <code>?name=docs</code>. Deploying the same
          name again replaces the content atomically and keeps the URL (<code>replaced: true</code>). Names match{" "}
          <code>^[a-z0-9][a-z0-9-]{"{0,40}"}$</code>. Without a credential: 401; on the free plan: 402.
        </p>
        <CodeBlock>{`curl --data-binary @site.zip -H 'content-type: application/zip' -H "authorization: Bearer $DROP_API_KEY" '${base}/deploy?name=docs'`}</CodeBlock>
      </Section>

      <Section id="access" title="Password-protected drops">
        <p>
          Any account can put a password on a drop it owns; every path of the drop (pages, assets, its 404 page, ranges,
          folder redirects, the vanity host) then answers 401 with a small password form and nothing of the drop. The
          right password sets a cookie for that host only, good for {inDays(ACCESS_UNLOCK_SECONDS)} or until the
          password or mode changes. Passwords are {ACCESS_PASSWORD_MIN_CHARS} to {ACCESS_PASSWORD_MAX_CHARS} characters,
          stored only as a salted scrypt hash; wrong passwords are limited to {describeRate(rates.unlock)} per drop and
          address. Anonymous drops cannot be protected (claim them first). The slug itself still resolves: a protected
          drop answers 401 where an unknown one answers 404.
        </p>
        <CodeBlock>{`curl -X PUT -H "authorization: Bearer $DROP_API_KEY" -H 'content-type: application/json' \\
  ${base}/drops/<slug>/access --data '{"mode": "password", "password": "a long passphrase"}'
curl -X PUT -H "authorization: Bearer $DROP_API_KEY" -H 'content-type: application/json' \\
  ${base}/drops/<slug>/access --data '{"mode": "public"}'`}</CodeBlock>
        <p>
          In the contract: <DocLink to="contract#access-control-addition">access control</DocLink>.
        </p>
      </Section>

      <Section id="append" title="Append">
        <p>
          Subscribers can add files to a drop they own with <code>POST /deploy/&lt;slug&gt;</code>, in any of the three
          body forms. Append adds new paths only (an existing path answers 400; redeploy a named drop to replace
          content). A drop holds at most {count(paid.filesPerDrop)} files; past that, 413. The response lists the files
          added and <code>total_files</code>.
        </p>
        <CodeBlock>{`curl --data-binary @more.zip -H 'content-type: application/zip' -H "authorization: Bearer $DROP_API_KEY" ${base}/deploy/<slug>`}</CodeBlock>
      </Section>

      <Section id="site-rules" title="Redirects and headers (_redirects, _headers)">
        <p>
          Put a <code>_redirects</code> and a <code>_headers</code> file at the root of a drop, in the syntax Netlify
          and Cloudflare Pages read. They are parsed when you deploy (every body form, deploys by reference and
          appends), stored with the drop&apos;s files, and never served themselves (404). The deploy <code>report</code>{" "}
          counts them as <code>redirect_rules</code> and <code>header_rules</code>; <code>get_drop</code>, the CLI and
          the drop&apos;s dashboard page show them. A line that does not parse, a header that cannot be set, or a file
          past a limit ({num(paid.redirectRules)} redirect rules, {num(paid.headerRules)} header rules,{" "}
          {num(paid.ruleLineChars)} characters a line) refuses the deploy with 400 <code>invalid_request</code> and an{" "}
          <code>error</code> such as <code>_redirects line 3: /a https://example.com 200 (…)</code>; nothing is dropped
          silently and nothing changes.
        </p>
        <p>
          <strong>
            <code>_redirects</code>
          </strong>
          : one rule a line, <code>from to [status][!]</code>; <code>#</code> starts a comment. <code>from</code> is a
          path of the drop: literal segments, <code>:name</code> for one segment, and <code>*</code> as the last segment
          for the rest (<code>:splat</code> in the target). A trailing slash does not matter; letter case does.{" "}
          <code>to</code> is a path of the drop or, for redirects, an <code>http(s)</code> URL; placeholders fill in
          path segments, percent-encoded, and never the host. Statuses: 301 (the default), 302, 303, 307, 308; 200
          serves the target&apos;s file at the requested URL (a rewrite, always within the drop); 404 serves the
          target&apos;s file with status 404. The request&apos;s query string is kept unless the target has one. The
          first matching rule wins.
        </p>
        <p>
          Order for each request: the first matching rule in file order, where a rule without <code>!</code> counts only
          when no file answers the path (the exact file, <code>about.html</code> for <code>/about</code>, the folder
          redirect to <code>/about/</code>) and a rule forced with <code>!</code> counts always; else that file; else a
          root <code>200.html</code> for extensionless paths; else your <code>404.html</code>. So a rule without{" "}
          <code>!</code> never hides a file. A rewrite is not matched against the rules again, and a rewrite to a
          missing file serves the 404.
        </p>
        <p>
          <strong>
            <code>_headers</code>
          </strong>
          : a path pattern (the same patterns: <code>/*</code>, <code>/assets/*</code>, <code>/:lang/about</code>) on a
          line of its own, then its headers indented, <code>Name: value</code>, one a line. Each path block is one rule.
          The headers of every matching block apply, in file order; a name set twice gets both values joined with{" "}
          <code>, </code>. A rule&apos;s <code>Cache-Control</code> replaces the service&apos;s default (
          <code>no-store</code> or <code>private</code> also keeps the response out of the CDN); <code>Vary</code> and{" "}
          <code>X-Robots-Tag</code> are added to the service&apos;s. Headers apply to files, rewrites, redirects, 304s
          and 404s of the drop. Refused, because they would break HTTP or the service: <code>Content-Length</code>,{" "}
          <code>Transfer-Encoding</code>, <code>Content-Encoding</code>, <code>Content-Range</code>, hop-by-hop headers
          (<code>Connection</code>, <code>Keep-Alive</code>, <code>Upgrade</code>, <code>TE</code>, <code>Trailer</code>
          ), <code>Set-Cookie</code>, <code>ETag</code>, <code>Location</code>, CDN cache controls and tags,{" "}
          <code>X-Dropsite-*</code>, and <code>X-Content-Type-Options</code> other than <code>nosniff</code>. Values are
          printable ASCII.
        </p>
        <Sub id="site-rules-examples" title="Examples">
          <p>
            A single-page app under <code>/app/</code> (its client router handles every route), and moved pages:
          </p>
          <CodeBlock label="the _redirects example">{`# _redirects
/app/*             /app/index.html   200
/blog/:year/:slug  /posts/:slug      301
/news/*            /blog/:splat
/docs              https://docs.example.com/  302
/old-pricing       /pricing          308!`}</CodeBlock>
          <p>
            Cross-origin isolation for WebAssembly threads (<code>SharedArrayBuffer</code>), CORS for fonts and data,
            and a long cache for a folder of hashed assets:
          </p>
          <CodeBlock label="the _headers example">{`# _headers
/*
  Cross-Origin-Opener-Policy: same-origin
  Cross-Origin-Embedder-Policy: require-corp
  Content-Security-Policy: default-src 'self'

/fonts/*
  Access-Control-Allow-Origin: *

/assets/*
  Cache-Control: public, max-age=31536000, immutable`}</CodeBlock>
        </Sub>
      </Section>

      <Section id="versions" title="Versions and rollback">
        <p>
          Every write that changes a drop&apos;s files (the first deploy, a named replace, an append) makes a new
          version, numbered 1, 2, 3… per drop; the drop serves its live version, and deploy and append answers carry{" "}
          <code>version</code>. <code>GET /drops/&lt;slug&gt;/versions</code> lists the retained versions newest first;{" "}
          <code>POST /drops/&lt;slug&gt;/rollback</code> with <code>{`{"version": N}`}</code> makes any retained version
          live again (older or newer), without copying a byte. The newest {anon.versionsKept} versions are kept on the
          free plan and {paid.versionsKept} on paid plans, the live one always; older ones are pruned by the cleanup
          job. An unknown or pruned version answers 404.
        </p>
        <CodeBlock>{`curl -H "authorization: Bearer $DROP_API_KEY" ${base}/drops/<slug>/versions
curl -H "authorization: Bearer $DROP_API_KEY" -H 'content-type: application/json' -d '{"version": 1}' ${base}/drops/<slug>/rollback`}</CodeBlock>
        <p>
          In the contract: <DocLink to="contract#versions-and-rollback-additive">versions and rollback</DocLink>.
        </p>
      </Section>

      <Section id="idempotency" title="Safe retries: If-Match and Idempotency-Key">
        <p>
          A named redeploy (<code>POST /deploy?name=…</code>) or an append may send <code>If-Match: &quot;N&quot;</code>
          : when version N is no longer live the answer is 409 <code>conflict</code> with <code>live_version</code>, and
          nothing changes; a malformed header is 400. A redeploy whose files equal the live version&apos;s (same paths
          and hashes) answers <code>unchanged: true</code> with the live <code>version</code> and creates nothing.
        </p>
        <p>
          <code>POST /deploy</code>, <code>POST /deploy/&lt;slug&gt;</code> and{" "}
          <code>POST /drops/&lt;slug&gt;/rollback</code> accept <code>Idempotency-Key</code> (1 to 255 printable
          characters). The same request with the same key from the same caller (account, or address when anonymous)
          within {IDEMPOTENCY_SECONDS / 3600} hours replays the first answer with <code>Idempotent-Replayed: true</code>{" "}
          and writes nothing; another request with the key is 409 <code>conflict</code>, and so is a retry while the
          first is still running (with <code>Retry-After</code>). MCP write tools take <code>idempotency_key</code>.
        </p>
        <CodeBlock>{`curl -H "authorization: Bearer $DROP_API_KEY" -H 'If-Match: "3"' -H "Idempotency-Key: $(uuidgen)" --data-binary @site.zip -H 'content-type: application/zip' '${base}/deploy?name=docs'`}</CodeBlock>
        <p>
          In the contract: <DocLink to="contract#safe-retries-additive">safe retries</DocLink>.
        </p>
      </Section>

      <Section id="uploads" title="Uploads: send only what changed">
        <p>
          Name your files by SHA-256 and size with <code>POST /deploy/preflight</code>; PUT the contents the answer
          lists as <code>missing</code> to their targets (each as given: its <code>method</code>, <code>url</code> and{" "}
          <code>headers</code>; where bytes live in Vercel Blob, contents over {mb(APP_UPLOAD_MAX_BYTES)} go straight to
          storage), then deploy with{" "}
          <code>
            {"{"}&quot;sha256&quot;, &quot;size&quot;{"}"}
          </code>{" "}
          in place of a file&apos;s content. The protocol, its limits and lifetimes:{" "}
          <DocLink to="uploads#protocol">uploads</DocLink>.
        </p>
        <CodeBlock>{`curl -X POST ${base}/deploy/preflight -H 'content-type: application/json' -d '{"files": {"index.html": {"sha256": "<64 hex>", "size": 1234}}}'
curl -X PUT --data-binary @index.html -H '<each of uploads[0].headers>' '<uploads[0].url>'
curl -X POST ${base}/deploy -H 'content-type: application/json' -H 'x-upload-token: <upload_token>' -d '{"files": {"index.html": {"sha256": "<64 hex>", "size": 1234}}}'`}</CodeBlock>
      </Section>

      <Section id="report" title="The deploy report">
        <p>
          Every deploy and append answers with a <code>report</code>: <code>missing_references</code> (files the HTML,
          CSS and JavaScript refer to that the drop does not hold) and <code>warnings</code> (<code>no_index</code>,{" "}
          <code>large_file</code> over {mb(LARGE_FILE_WARNING_BYTES)}, <code>case_clash</code>, <code>secret</code>,{" "}
          <code>not_scanned</code>). The deploy has succeeded either way. What each means:{" "}
          <DocLink to="decisions#deploy-report">the deploy report</DocLink>.
        </p>
      </Section>

      <Section id="render-check" title="The render check">
        <p>
          Add <code>?render=1</code> to a deploy (MCP: <code>render_check: true</code>; CLI:{" "}
          <code>dropsite deploy --check</code>) and the answer carries <code>render</code>: the page opened in a real
          browser at desktop and phone sizes, its console errors, uncaught exceptions, failed requests, whether it is
          blank, and two screenshots. <code>POST /drops/{"{slug}"}/render</code> checks the live version at any time;{" "}
          <code>GET</code> reads the latest. Without a browser on the server the answer says <code>unavailable</code>{" "}
          and the deploy still succeeds. Details: <DocLink to="render-check">the render check</DocLink>.
        </p>
      </Section>

      <Section id="deploy-once" title="One-time deploy URLs (agents with a shell)">
        <p>
          The MCP tool <code>deploy_directory</code> returns a one-time URL,{" "}
          <code>{base}/deploy/once/&lt;token&gt;</code>, that takes the same bodies as <code>POST /deploy</code> and
          deploys as the caller that asked for it. It works once, for {DEPLOY_GRANT_SECONDS / 60} minutes; a second or
          late use answers 410 <code>gone</code>. Details:{" "}
          <DocLink to="uploads#one-time-deploy-urls">one-time deploy URLs</DocLink>.
        </p>
        <CodeBlock>{`(cd dist && zip -qr - . -x '.*' '*/.*') > site.zip
curl --fail -H 'content-type: application/zip' --data-binary @site.zip ${base}/deploy/once/dg_…
npx dropsite deploy dist --grant ${base}/deploy/once/dg_…`}</CodeBlock>
      </Section>

      <Section id="vanity" title="Vanity hosts">
        <p>
          On the Team plan, claim one subdomain per account with <code>POST /vanity</code>{" "}
          <code>{`{"sub": "acme"}`}</code>; your named drops then also serve at{" "}
          <code>{`${scheme}://<sub>--<name>.${serve}/`}</code>. A taken sub answers 409, other plans 402. More:{" "}
          <DocLink to="billing#vanity-subdomains">vanity subdomains</DocLink>.
        </p>
      </Section>

      <Section id="webhooks" title="Webhooks">
        <p>
          An account&apos;s webhooks ({free.maxWebhooks} on free, {paid.maxWebhooks} on pro, {limits.team.maxWebhooks}{" "}
          on team) receive a signed POST for every change to its drops:
          <code>POST /webhooks</code> with <code>{`{"url": "https://…", "events": [...]}`}</code> answers the signing{" "}
          <code>secret</code>, shown only then. Without <code>events</code> a webhook receives all of them:
        </p>
        <ul>
          {Object.entries(WEBHOOK_EVENTS).map(([type, what]) => (
            <li key={type}>
              <code>{type}</code>: {what}
            </li>
          ))}
        </ul>
        <p>
          Events are signed by the Standard Webhooks scheme; any 2xx within {WEBHOOK_TIMEOUT_SECONDS} seconds is a
          delivery, anything else is retried for about{" "}
          {Math.round(WEBHOOK_RETRY_SECONDS.reduce((a, b) => a + b, 0) / 3600)} hours.{" "}
          <DocLink to="webhooks#verify">How to verify them</DocLink> (Node and Python),{" "}
          <DocLink to="webhooks#delivery">delivery and retries</DocLink> and{" "}
          <DocLink to="webhooks#where-a-webhook-may-point">where a webhook may point</DocLink> are in the{" "}
          <DocLink to="webhooks">webhooks guide</DocLink>.
        </p>
      </Section>

      <Section id="domains" title="Custom domains">
        <p>
          On the Team plan (up to {limits.team.maxDomains} per account), serve a drop at your own hostname:{" "}
          <code>{`POST /domains {"hostname": "docs.example.com", "slug": "<slug>"}`}</code> answers a TXT record that
          proves the name is yours and a CNAME to the drop&apos;s host; then{" "}
          <code>POST /domains/&lt;hostname&gt;/verify</code>. Remove the TXT record and the domain goes back to{" "}
          <code>pending</code> after {DOMAIN_TXT_GRACE_SECONDS / 86_400} days. The endpoints and their answers:{" "}
          <DocLink to="contract#custom-domains-addition">the contract, custom domains</DocLink>.
        </p>
        <CodeBlock>{`curl -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"hostname":"docs.example.com","slug":"<slug>"}' ${base}/domains
npx dropsite domains verify docs.example.com`}</CodeBlock>
      </Section>

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
    </main>
  );
}
