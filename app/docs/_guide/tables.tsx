import { errorStatus, type ErrorCode } from "@/lib/errors";
import { limits, type Tier } from "@/lib/plans";
import { describeRate, type ratePolicies } from "@/lib/ratelimit/policy";
import { ScrollRegion } from "../../_components/ScrollRegion";
import { count, mb, num } from "./format";

// The guide's tables, generated from the tables the service enforces: the plan table, the
// rate-limit policies and the error codes.

const anon = limits.anonymous;
const free = limits.free;
const paid = limits.pro;

/** What a client should do for each error code; typed so a new code cannot go undocumented. */
const errorAdvice: Record<ErrorCode, string> = {
  invalid_request:
    "The body or a parameter is malformed (unparseable JSON, a bad path, an empty body, a duplicate path). Read error and hint, fix the request, and send it again.",
  invalid_ttl: `ttl must be a whole number of seconds, at least ${anon.ttlMinSeconds} and at most your plan's maximum. Pick a value in range or omit it for the default.`,
  invalid_name:
    "name must match ^[a-z0-9][a-z0-9-]{0,40}$: lowercase letters, digits and hyphens, up to 41 characters, not starting with a hyphen.",
  invalid_zip:
    "The body is not a readable zip (corrupt, encrypted, or it contains symlinks). Rebuild it, e.g. with zip -r site.zip .",
  file_cap_exceeded: `Too many files in one request (${count(free.filesPerRequest)} anonymous and free, ${count(paid.filesPerRequest)} paid). Paid plans raise the cap; subscribers can split the upload and append the rest.`,
  authorization_pending:
    "Device authorisation: the person has not approved yet. Poll POST /device/token again after interval seconds.",
  slow_down:
    "Device authorisation: polled too fast. Add 5 seconds to your polling interval (Retry-After has the new one).",
  expired_token:
    "Device authorisation: the request expired (10 minutes) or its key was already issued. Start over with POST /device/authorize.",
  access_denied: "Device authorisation: the person denied the request. Ask before starting over.",
  forbidden:
    "You are known but may not do this: the drop is disabled by the operator (you can still delete it), your account is suspended, or the route needs a role you lack. The hint names the appeal form (/report, reason appeal).",
  content_refused:
    "The deploy scan refused the content of an anonymous deploy; details.findings lists each rule, file, line and excerpt. Remove what it names, or deploy from an account (its findings are reviewed instead).",
  auth_required:
    "Send Authorization: Bearer <sp_ key or ID token>. A revoked or mistyped key looks exactly like no key. Minting keys needs an ID token.",
  subscription_required:
    "The feature needs a paid plan (named drops, append, longer lifetimes, vanity hosts, more drops). Follow upgrade_url.",
  not_found: "Nothing there, or it belongs to another account. Check the slug or key id.",
  method_not_allowed: "The path exists but not with this method; the Allow header lists the methods it answers.",
  conflict:
    "The vanity subdomain is taken or your account already has one; or a write sent If-Match with a version that is no longer live (read live_version, check what changed, retry); or an Idempotency-Key was reused for another request or is still in flight (see Retry-After).",
  gone: "The drop expired, or the claim window of an anonymous drop has closed. Deploy again.",
  payload_too_large: `The body is over its cap (zip ${mb(free.zipBytes)} free / ${mb(paid.zipBytes)} paid, HTML and JSON ${mb(paid.bodyBytes)}), a zip unpacks past ${paid.decompressionRatio}x its size, a file is over the per-file cap, a drop's files would pass its total (${mb(free.dropBytes)} free / ${mb(paid.dropBytes)} paid), or an append would pass ${count(paid.filesPerDrop)} files per drop.`,
  rate_limited: "Too many requests; wait the number of seconds in Retry-After, then retry.",
  internal_error:
    "Something failed on our side; nothing about it is in the body. Retry; report the time of the request if it persists.",
  upstream_unavailable:
    "A dependency (database, storage, identity provider, payment provider) is unavailable, or billing is not configured on this server. Retry after Retry-After; the hint says which.",
};

const tiers: Tier[] = ["anonymous", "free", "pro", "team"];
const seconds = (n: number | null, none: string) =>
  n === null ? none : n % 86_400 === 0 ? `${n / 86_400} days (${n} s)` : `${n} s`;
const yes = (b: boolean) => (b ? "yes" : "no");

const limitRows: [string, (t: Tier) => string][] = [
  ["Files per request", (t) => num(limits[t].filesPerRequest)],
  ["Files per drop (with append)", (t) => num(limits[t].filesPerDrop)],
  ["Zip size", (t) => mb(limits[t].zipBytes)],
  ["HTML / JSON body", (t) => mb(limits[t].bodyBytes)],
  ["Single file", (t) => mb(limits[t].fileBytes)],
  ["Drop total (all its files)", (t) => mb(limits[t].dropBytes)],
  ["Unpacked zip", (t) => `at most ${limits[t].decompressionRatio}x the archive`],
  ["ttl minimum", (t) => seconds(limits[t].ttlMinSeconds, "")],
  ["ttl maximum", (t) => seconds(limits[t].ttlMaxSeconds, "none")],
  ["Default lifetime", (t) => seconds(limits[t].ttlDefaultSeconds, "never expires")],
  ["Drops per account", (t) => (t === "anonymous" ? "n/a" : num(limits[t].maxDrops))],
  ["Live API keys", (t) => (t === "anonymous" ? "n/a" : num(limits[t].maxKeys))],
  ["Webhooks", (t) => (t === "anonymous" ? "n/a" : num(limits[t].maxWebhooks))],
  ["Named drops", (t) => yes(limits[t].namedDrops)],
  ["Append", (t) => yes(limits[t].append)],
  ["Vanity subdomain", (t) => yes(limits[t].vanity)],
  ["Custom domains", (t) => (limits[t].maxDomains === 0 ? "no" : num(limits[t].maxDomains))],
  [
    "Site rules (_redirects / _headers)",
    (t) =>
      `${num(limits[t].redirectRules)} redirect rules, ${num(limits[t].headerRules)} header rules, ${num(limits[t].ruleLineChars)} characters a line`,
  ],
  [
    "Price",
    (t) =>
      limits[t].priceUsd === null
        ? "free, no account"
        : limits[t].priceUsd === 0
          ? "free"
          : `$${limits[t].priceUsd}/month`,
  ],
];

export function LimitsTable() {
  return (
    <ScrollRegion label="Limits per plan">
      <table>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Limit</span>
            </th>
            {tiers.map((t) => (
              <th key={t}>{t}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {limitRows.map(([label, cell]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {tiers.map((t) => (
                <td key={t}>{cell(t)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

export function RateLimitsTable({ rates }: { rates: ReturnType<typeof ratePolicies> }) {
  return (
    <ScrollRegion label="Rate limits">
      <table>
        <thead>
          <tr>
            <th>limit</th>
            <th>what counts</th>
          </tr>
        </thead>
        <tbody>
          {Object.values(rates).map((p) => (
            <tr key={p.name}>
              <td>{describeRate(p)}</td>
              <td>{p.counts}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

export function ErrorsTable() {
  return (
    <table>
      <thead>
        <tr>
          <th>code</th>
          <th>status</th>
          <th>what to do</th>
        </tr>
      </thead>
      <tbody>
        {(Object.keys(errorStatus) as ErrorCode[]).map((code) => (
          <tr key={code} id={`error-${code}`}>
            <td>
              <code>{code}</code>
            </td>
            <td>{errorStatus[code]}</td>
            <td>{errorAdvice[code]}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
