import {
  APP_UPLOAD_MAX_BYTES,
  DEPLOY_GRANT_SECONDS,
  DOMAIN_TXT_GRACE_SECONDS,
  IDEMPOTENCY_SECONDS,
  LARGE_FILE_WARNING_BYTES,
  limits,
  WEBHOOK_RETRY_SECONDS,
  WEBHOOK_TIMEOUT_SECONDS,
} from "@/lib/plans";
import { WEBHOOK_EVENTS } from "@/lib/patterns";
import { CodeBlock } from "../../_components/CodeBlock";
import { mb, num } from "./format";
import { DocLink, Section, Sub } from "./parts";
import type { GuideProps } from "./guide";
import { TeamSection } from "./teams";

// The guide to site rules, versions, safe retries, uploads, the report, one-time URLs, vanity
// hosts, webhooks and custom domains.

const anon = limits.anonymous;
const free = limits.free;
const paid = limits.pro;

export function FeatureSections({ base, scheme, serve }: GuideProps) {
  return (
    <>
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

      <Section id="read-back" title="Taking a site back out">
        <p>
          Any retained version comes back out as it went in. <code>GET /drops/&lt;slug&gt;/archive?version=N</code> (the
          live version without <code>version</code>) streams a zip of every file at its path, <code>_redirects</code>{" "}
          and <code>_headers</code> included, byte for byte; deployed again it answers <code>unchanged</code>.{" "}
          <code>GET /drops/&lt;slug&gt;/files</code> lists a version&apos;s files (path, size, SHA-256, content type)
          and <code>GET /drops/&lt;slug&gt;/files/&lt;path&gt;</code> answers one file&apos;s bytes, whatever the
          drop&apos;s access mode: the owner&apos;s key, or a team member&apos;s (viewer and up), is the credential. A
          missing path, or an unknown or pruned version, answers 404. Every such answer is a download (
          <code>Content-Disposition: attachment</code>) that a browser neither sniffs nor runs. MCP agents call{" "}
          <code>list_files</code> and <code>read_file</code>; the CLI{" "}
          <code>dropsite pull &lt;slug&gt; [dir] [--at N]</code>; the dashboard has &quot;Download .zip&quot; on every
          version.
        </p>
        <CodeBlock>{`curl -H "authorization: Bearer $DROP_API_KEY" -o site.zip ${base}/drops/<slug>/archive?version=3
curl -H "authorization: Bearer $DROP_API_KEY" ${base}/drops/<slug>/files/_redirects`}</CodeBlock>
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
          first is still running (with <code>Retry-After</code>). MCP write take <code>idempotency_key</code>.
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

      <TeamSection base={base} />

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
    </>
  );
}
