// The one table of plan limits. Deploy checks, GET /limits, the MCP get_limits tool, the docs
// and the pricing section all read it.

export const plans = ["free", "pro", "team"] as const;
export type Plan = (typeof plans)[number];
/** Who is deploying: nobody (anonymous) or an account on a plan. */
export type Tier = "anonymous" | Plan;

const MB = 1024 * 1024;
const DAY = 86_400;

export interface TierLimits {
  filesPerRequest: number;
  filesPerDrop: number;
  zipBytes: number;
  /** HTML and JSON bodies. */
  bodyBytes: number;
  /** Unpacked bytes of a zip may be at most this multiple of the archive. */
  decompressionRatio: number;
  fileBytes: number;
  /**
   * Total bytes of one drop's files, however they arrive (HTML, JSON, zip, references) and
   * after appends: what a zip of the plan may unpack to, for drops built from uploads too.
   */
  dropBytes: number;
  /**
   * Bytes one caller (an account; an anonymous client address) may hold named by preflights
   * and uploads that no drop uses yet, until the holds end (UPLOAD_GRANT_SECONDS): two drops'
   * worth. Past it a preflight or upload answers 413.
   */
  heldBytes: number;
  ttlMinSeconds: number;
  /** null: no maximum. */
  ttlMaxSeconds: number | null;
  /** null: never expires unless ttl is given. */
  ttlDefaultSeconds: number | null;
  /** null: not limited (anonymous drops belong to nobody). */
  maxDrops: number | null;
  maxKeys: number;
  /** Webhooks per account (0: none; anonymous callers have no account). */
  maxWebhooks: number;
  namedDrops: boolean;
  append: boolean;
  vanity: boolean;
  /** Custom domains an account may hold (POST /domains); 0: not on this plan. */
  maxDomains: number;
  /** Seats of a team on this plan, its owners counted, pending invites not (POST /teams needs one > 0). */
  maxMembers: number;
  /** Versions of a drop kept for rollback (the live one included); the cleanup job prunes older ones. */
  versionsKept: number;
  /** Aliases a drop may have (PUT /drops/{slug}/aliases/{name}); 0: none (anonymous drops have no owner). */
  aliasesPerDrop: number;
  /** Days of counts (lib/stats) the owner reads back, today included; 0: none (anonymous drops have no owner). */
  statsRetentionDays: number;
  /** Monthly price in USD, for the pricing table. */
  priceUsd: number | null;
  /** Site rules: rules of a drop's `_redirects`, path blocks of its `_headers`, characters a line. */
  redirectRules: number;
  headerRules: number;
  ruleLineChars: number;
  /** Header lines in one `_headers` path block. */
  headerLinesPerRule: number;
  /** Bytes `_headers` may add to one response (every rule matching its path, `Name: value` and CRLF each). */
  addedHeaderBytes: number;
  /** Render checks (lib/render) a caller may start an hour: an account, or an anonymous client address. */
  renderChecksPerHour: number;
}

/**
 * The site-rule limits, the same on every plan (Cloudflare Pages allows 2,000 redirects too).
 * 8 KB of added headers keeps a response well within what servers and proxies accept (nginx's
 * default large header buffer is 8 KB; Node's whole header limit is 16 KB).
 */
const siteRules = {
  redirectRules: 2_000,
  headerRules: 200,
  ruleLineChars: 1_000,
  headerLinesPerRule: 100,
  addedHeaderBytes: 8 * 1024,
} as const;

/** A refused rules file lists at most this many of its bad lines (details.errors). */
export const RULE_REFUSALS_LISTED = 50;

const paidBase = {
  filesPerRequest: 900,
  filesPerDrop: 10_000,
  zipBytes: 100 * MB,
  bodyBytes: 10 * MB,
  decompressionRatio: 4,
  fileBytes: 100 * MB,
  dropBytes: 400 * MB,
  heldBytes: 800 * MB,
  ttlMinSeconds: 60,
  ttlMaxSeconds: null,
  ttlDefaultSeconds: null,
  maxKeys: 25,
  namedDrops: true,
  append: true,
  ...siteRules,
  versionsKept: 100,
} as const;

export const limits: Record<Tier, TierLimits> = {
  anonymous: {
    filesPerRequest: 100,
    filesPerDrop: 10_000,
    zipBytes: 25 * MB,
    bodyBytes: 10 * MB,
    decompressionRatio: 4,
    fileBytes: 25 * MB,
    dropBytes: 100 * MB,
    heldBytes: 200 * MB,
    ttlMinSeconds: 60,
    ttlMaxSeconds: 30 * DAY,
    ttlDefaultSeconds: 30 * DAY,
    maxDrops: null,
    maxKeys: 0,
    maxWebhooks: 0,
    namedDrops: false,
    append: false,
    vanity: false,
    maxDomains: 0,
    maxMembers: 0,
    versionsKept: 5,
    aliasesPerDrop: 0,
    statsRetentionDays: 0,
    priceUsd: null,
    renderChecksPerHour: 3,
    ...siteRules,
  },
  free: {
    filesPerRequest: 100,
    filesPerDrop: 10_000,
    zipBytes: 25 * MB,
    bodyBytes: 10 * MB,
    decompressionRatio: 4,
    fileBytes: 25 * MB,
    dropBytes: 100 * MB,
    heldBytes: 200 * MB,
    ttlMinSeconds: 60,
    ttlMaxSeconds: 7 * DAY,
    ttlDefaultSeconds: 7 * DAY,
    maxDrops: 100,
    maxKeys: 25,
    maxWebhooks: 2,
    namedDrops: false,
    append: false,
    vanity: false,
    maxDomains: 0,
    maxMembers: 0,
    versionsKept: 5,
    aliasesPerDrop: 3,
    statsRetentionDays: 7,
    priceUsd: 0,
    renderChecksPerHour: 20,
    ...siteRules,
  },
  pro: {
    ...paidBase,
    maxDrops: 5_000,
    maxWebhooks: 10,
    aliasesPerDrop: 20,
    vanity: false,
    maxDomains: 0,
    maxMembers: 0,
    statsRetentionDays: 90,
    priceUsd: 9,
    renderChecksPerHour: 120,
  },
  team: {
    ...paidBase,
    maxDrops: 20_000,
    maxWebhooks: 25,
    aliasesPerDrop: 50,
    vanity: true,
    maxDomains: 50,
    maxMembers: 10,
    statsRetentionDays: 365,
    priceUsd: 29,
    renderChecksPerHour: 300,
  },
};

/** Counts older than the longest retention are deleted by the cleanup job. */
export const STATS_KEPT_DAYS = Math.max(...Object.values(limits).map((l) => l.statsRetentionDays));

/** The deploy report warns about files larger than this (large_file): slow for visitors on any plan. */
export const LARGE_FILE_WARNING_BYTES = 10 * MB;

/** An anonymous drop stays privately claimable this long after it goes offline. */
export const CLAIM_GRACE_SECONDS = 30 * DAY;

/**
 * The most bytes one upload target takes through the app. A Vercel Function accepts at most
 * 4.5 MB of request body, so where storage takes uploads from clients directly (Vercel Blob),
 * contents larger than this get a target straight to storage instead (docs/uploads.md).
 */
export const APP_UPLOAD_MAX_BYTES = 4 * MB;

/** How long a preflight's upload targets, and uploaded contents no deploy has used, are kept. */
export const UPLOAD_GRANT_SECONDS = 60 * 60;

/** How long the one-time deploy URL of deploy_directory (POST /deploy/once/{token}) may be used. */
export const DEPLOY_GRANT_SECONDS = 30 * 60;

/** How long an Idempotency-Key's first answer is kept for replay (per caller and key). */
export const IDEMPOTENCY_SECONDS = 24 * 60 * 60;
/** The longest idempotency key (Idempotency-Key header, MCP idempotency_key), in printable ASCII characters. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** The most anonymous drops one device authorisation may ask to claim. */
export const DEVICE_CLAIMS_MAX = 50;

/**
 * The longest ttl any plan accepts (100 years), even where the plan has no maximum: a date past
 * year 9999 has no RFC 3339 form, and the database refuses it.
 */
export const TTL_CEILING_SECONDS = 100 * 365 * 24 * 60 * 60;

export function isPaid(tier: Tier): boolean {
  return tier === "pro" || tier === "team";
}

/** A team invitation's code may be used this long (once). */
export const TEAM_INVITE_SECONDS = 7 * DAY;

/** A custom domain whose TXT record the cleanup job has not seen for this long goes back to pending. */
export const DOMAIN_TXT_GRACE_SECONDS = 7 * DAY;

/**
 * Review (DESIGN round 5, "Review"): a review link lives 1 to 30 days (7 unless asked); a drop
 * has at most 200 open threads; a link may write 60 comments and replies an hour and one client
 * address 120 (429 past them); a body is 1 to 2,000 characters, a link holder's name 1 to 60; a
 * pin sits within the page's width (1280 desktop or 390 phone) and 50,000 CSS pixels down.
 */
export const reviewLimits = {
  linkDaysMin: 1,
  linkDaysMax: 30,
  linkDaysDefault: 7,
  openCommentsPerDrop: 200,
  commentsPerLinkPerHour: 60,
  commentsPerAddressPerHour: 120,
  bodyChars: 2_000,
  nameChars: 60,
  pinWidths: [1280, 390],
  pinMaxY: 50_000,
} as const;

/** A protected drop's password: 8 to 128 characters (Unicode code points), on every plan. */
export const ACCESS_PASSWORD_MIN_CHARS = 8;
export const ACCESS_PASSWORD_MAX_CHARS = 128;

/** How long a right password keeps a drop unlocked in one browser (its cookie's lifetime). */
export const ACCESS_UNLOCK_SECONDS = 7 * DAY;

/** How long the one-time token that lets a team member into a members-only drop is good for. */
export const ACCESS_MEMBER_TOKEN_SECONDS = 60;

/** An emails-only drop's allow list: 1 to this many entries (addresses and `@domains`), on every plan. */
export const ACCESS_EMAILS_MAX = 100;

/** How long a one-time sign-in link mailed for an emails-only drop may be opened (once). */
export const SIGNIN_LINK_SECONDS = 15 * 60;

/** Sign-in mails one address may receive per hour, whatever drops ask for them. */
export const SIGNIN_MAILS_PER_ADDRESS_PER_HOUR = 5;

/** Sign-in mails one drop may send per hour, whatever addresses ask. */
export const SIGNIN_MAILS_PER_DROP_PER_HOUR = 50;

/** How long an emails-only drop keeps a viewer (first and last seen, views) after their last visit. */
export const VIEWERS_KEPT_DAYS = 90;

/** A share link's lifetime: 1 to this many hours. */
export const SHARE_LINK_MAX_HOURS = 720;

/** The most bytes the ask page's form may carry (an address and the path to return to). */
export const SIGNIN_FORM_BODY_BYTES = 4096;

/** MCP read_file answers a text file as text up to this many bytes; a larger or binary file as a signed URL. */
export const READ_FILE_TEXT_BYTES = 1 * MB;

/** How long a signed read URL (read_file's resource link) answers a file's bytes. */
export const SIGNED_READ_SECONDS = 10 * 60;

/** The most bytes an unlock form post may carry (a password and the path to return to). */
export const ACCESS_UNLOCK_BODY_BYTES = 4096;

/**
 * Webhook deliveries: each attempt waits at most WEBHOOK_TIMEOUT_SECONDS for the receiver; after
 * a failed attempt n the next waits WEBHOOK_RETRY_SECONDS[n-1] (exponential, x4 from 30 seconds,
 * capped at 8 hours: about 27 hours in all), and after the last the delivery is failed for good.
 */
export const WEBHOOK_TIMEOUT_SECONDS = 10;
export const WEBHOOK_RETRY_SECONDS = [30, 120, 480, 1_920, 7_680, 28_800, 28_800, 28_800] as const;
/** How often the self-hosted worker looks for due deliveries (the first attempt starts within this). */
export const WEBHOOK_POLL_SECONDS = 2;
/** Attempts of the delivery log GET /webhooks/{id}/deliveries shows (newest first). */
export const WEBHOOK_LOG_SHOWN = 100;

/**
 * Abuse reports (POST /reports, the /report form, MCP report_abuse): one address may send
 * `perAddressPerHour` an hour; `details` is at most `detailsChars` code points.
 */
export const reportLimits = { perAddressPerHour: 10, detailsChars: 2_000 } as const;

/**
 * The deploy scan (lib/scan): the first bytes of each HTML and JavaScript file it reads, the
 * most of them it reads in one deploy (past it, files are only typed by their first bytes), and
 * the most linked URLs one deploy looks up with Web Risk.
 */
export const SCAN_FILE_BYTES = 1 * MB;
export const SCAN_DEPLOY_BYTES = 50 * MB;
export const SCAN_URLS_PER_DEPLOY = 200;

/** The render check (lib/render): the wait for load and network idle per viewport, and the hard stop per check. */
export const RENDER_VIEWPORT_WAIT_MS = 10_000;
export const RENDER_HARD_STOP_MS = 20_000;
/** The largest screenshot an MCP answer carries as an image block (a larger one is scaled down). */
export const RENDER_MCP_IMAGE_BYTES = 1024 * 1024;
