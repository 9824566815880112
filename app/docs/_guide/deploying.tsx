import { describeRate } from "@/lib/ratelimit/policy";
import {
  ACCESS_PASSWORD_MAX_CHARS,
  ACCESS_PASSWORD_MIN_CHARS,
  ACCESS_UNLOCK_SECONDS,
  CLAIM_GRACE_SECONDS,
  limits,
} from "@/lib/plans";
import { CodeBlock } from "../../_components/CodeBlock";
import { count, inDays } from "./format";
import { DocLink, Section, Sub } from "./parts";
import type { GuideProps } from "./guide";

// The guide from a first deploy to named drops, access and appends.

const anon = limits.anonymous;
const free = limits.free;
const paid = limits.pro;

export function DeployingSections({ base, scheme, serve, rates, mcpConfig }: GuideProps) {
  return (
    <>
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
    </>
  );
}
