import type { Env } from "../env";
import {
  limits,
  reportLimits,
  reviewLimits,
  SIGNIN_MAILS_PER_ADDRESS_PER_HOUR,
  SIGNIN_MAILS_PER_DROP_PER_HOUR,
} from "../plans";

// The one table of rate limits. Every guard names a row here; docs, OpenAPI texts and MCP tool
// texts read their numbers from it. A limit counts hits of one kind per subject (a client
// address, an account, a credential) in a sliding window.

export type LimitName =
  | "deploy"
  | "deployInvalid"
  | "deployGrant"
  | "preflight"
  | "preflightAccount"
  | "upload"
  | "claim"
  | "keyMint"
  | "accountRoute"
  | "deviceAuthorize"
  | "deviceApprove"
  | "unlock"
  | "signinAddress"
  | "signinDrop"
  | "oauthRegister"
  | "report"
  | "renderCheck"
  | "commentLink"
  | "commentAddress";

export interface LimitPolicy {
  name: LimitName;
  max: number;
  windowSeconds: number;
  /** Whose budget it is. */
  per: "ip" | "account" | "credential" | "drop-ip" | "email" | "drop";
  /** What one hit is, for people reading the table or the docs. */
  counts: string;
  /** Noun for the 429 message: "Too many <what>". */
  what: string;
  /**
   * Retry-After on a 429: the limiter's real wait, or the whole window (the contract fixes
   * `Retry-After: 60` for deploys).
   */
  retryAfter: "limiter" | "window";
}

/** Uploads one address may make per preflight it may make: the files of one anonymous or free request. */
const UPLOADS_PER_PREFLIGHT = 100;

/** How many refused (invalid) deploy attempts one address may make per deploy it may make. */
export const INVALID_DEPLOY_FACTOR = 6;

export function ratePolicies(e: Pick<Env, "RATE_LIMIT_DEPLOYS_PER_MINUTE">): Record<LimitName, LimitPolicy> {
  return {
    deploy: {
      name: "deploy",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE,
      windowSeconds: 60,
      per: "ip",
      counts: "deploys that reach storage (REST, dashboard upload and MCP deploy tools), per client address",
      what: "deploys from this address",
      retryAfter: "window",
    },
    deployInvalid: {
      name: "deployInvalid",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE * INVALID_DEPLOY_FACTOR,
      windowSeconds: 60,
      per: "ip",
      counts: "deploy requests refused for invalid input (400, 401, 402, 413), per client address",
      what: "refused deploy requests from this address",
      retryAfter: "limiter",
    },
    deployGrant: {
      name: "deployGrant",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE,
      windowSeconds: 60,
      per: "ip",
      counts: "one-time deploy URLs issued (MCP deploy_directory), per client address; using one counts as a deploy",
      what: "one-time deploy URLs from this address",
      retryAfter: "limiter",
    },
    preflight: {
      name: "preflight",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE,
      windowSeconds: 60,
      per: "ip",
      counts:
        "anonymous preflights (POST /deploy/preflight, a one-time URL's preflight, MCP preflight_files), per client address, at the deploy rate",
      what: "preflights from this address",
      retryAfter: "limiter",
    },
    preflightAccount: {
      name: "preflightAccount",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE * INVALID_DEPLOY_FACTOR,
      windowSeconds: 60,
      per: "account",
      counts: "preflights of an account (REST, dashboard, one-time URLs, MCP preflight_files), per account",
      what: "preflights for this account",
      retryAfter: "limiter",
    },
    upload: {
      name: "upload",
      max: e.RATE_LIMIT_DEPLOYS_PER_MINUTE * UPLOADS_PER_PREFLIGHT,
      windowSeconds: 60,
      per: "ip",
      counts:
        "uploads (PUT to an upload target, MCP upload_content), per client address: a full preflight's worth per preflight allowed",
      what: "uploads from this address",
      retryAfter: "limiter",
    },
    claim: {
      name: "claim",
      max: 10,
      windowSeconds: 60,
      per: "ip",
      counts: "POST /claim requests, per client address",
      what: "claims from this address",
      retryAfter: "limiter",
    },
    keyMint: {
      name: "keyMint",
      max: 5,
      windowSeconds: 60,
      per: "account",
      counts: "POST /keys requests, per account",
      what: "keys minted",
      retryAfter: "limiter",
    },
    deviceAuthorize: {
      name: "deviceAuthorize",
      max: 10,
      windowSeconds: 60,
      per: "ip",
      counts: "device authorisations started (POST /device/authorize, MCP device_authorize), per client address",
      what: "device authorisations from this address",
      retryAfter: "limiter",
    },
    deviceApprove: {
      name: "deviceApprove",
      max: 10,
      windowSeconds: 60,
      per: "account",
      counts: "device approvals and denials on /device, per account (guards guessing of user codes)",
      what: "device approvals",
      retryAfter: "limiter",
    },
    oauthRegister: {
      name: "oauthRegister",
      max: 50,
      windowSeconds: 3600,
      per: "ip",
      counts:
        "OAuth client registrations (POST /api/oauth/register, the MCP connectors' dynamic registration), per client address",
      what: "OAuth client registrations from this address",
      retryAfter: "limiter",
    },
    unlock: {
      name: "unlock",
      max: 10,
      windowSeconds: 60,
      per: "drop-ip",
      counts: "wrong passwords posted to a protected drop's unlock form, per drop and client address",
      what: "wrong passwords for this drop from this address",
      retryAfter: "limiter",
    },
    signinAddress: {
      name: "signinAddress",
      max: SIGNIN_MAILS_PER_ADDRESS_PER_HOUR,
      windowSeconds: 3600,
      per: "email",
      counts:
        "sign-in mails sent for emails-only drops, per address (across drops); past it the same answer and no mail",
      what: "sign-in mails to this address",
      retryAfter: "limiter",
    },
    signinDrop: {
      name: "signinDrop",
      max: SIGNIN_MAILS_PER_DROP_PER_HOUR,
      windowSeconds: 3600,
      per: "drop",
      counts: "sign-in mails sent for one emails-only drop, per drop; past it the same answer and no mail",
      what: "sign-in mails for this drop",
      retryAfter: "limiter",
    },
    report: {
      name: "report",
      max: reportLimits.perAddressPerHour,
      windowSeconds: 3600,
      per: "ip",
      counts: "abuse reports (POST /reports, the /report form, MCP report_abuse), per client address",
      what: "reports from this address",
      retryAfter: "limiter",
    },
    renderCheck: {
      name: "renderCheck",
      // The anonymous rate; an account's is its plan's render_checks_per_hour (lib/render/service.ts).
      max: limits.anonymous.renderChecksPerHour,
      windowSeconds: 3600,
      per: "account",
      counts:
        "render checks started (?render=1, POST /drops/{slug}/render, MCP render_check, the dashboard), per account, or per client address when anonymous, at the plan's render_checks_per_hour",
      what: "render checks",
      retryAfter: "limiter",
    },
    commentLink: {
      name: "commentLink",
      max: reviewLimits.commentsPerLinkPerHour,
      windowSeconds: 3600,
      per: "credential",
      counts:
        "comments and replies written through one review link (its page, or Bearer rl_ on its drop's comment routes)",
      what: "comments through this review link",
      retryAfter: "limiter",
    },
    commentAddress: {
      name: "commentAddress",
      max: reviewLimits.commentsPerAddressPerHour,
      windowSeconds: 3600,
      per: "ip",
      counts: "comments and replies written on any drop (review links and accounts alike), per client address",
      what: "comments from this address",
      retryAfter: "limiter",
    },
    accountRoute: {
      name: "accountRoute",
      max: 120,
      windowSeconds: 60,
      per: "credential",
      counts: "requests to account routes (drops, keys, appends, MCP account tools), per credential",
      what: "requests with this credential",
      retryAfter: "limiter",
    },
  };
}

/** "10 per minute", "60 per 300 s". */
export function describeRate(p: Pick<LimitPolicy, "max" | "windowSeconds">): string {
  return `${p.max} per ${p.windowSeconds === 60 ? "minute" : `${p.windowSeconds} s`}`;
}
