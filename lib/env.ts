import { z } from "zod";
import { isIP } from "node:net";
import { getDomain } from "tldts";

// The one reader of process.env. Every variable the service understands is declared here;
// a malformed value fails at start with a message naming the variable.

const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** An optional http(s) URL; `origin` refuses a path (an API base such as https://api.vercel.com). */
const optionalHttpUrl = (name: string, origin?: { example: string }) =>
  optionalString.refine(
    (v) => v === undefined || (origin ? /^https?:\/\/[^/]+\/?$/ : /^https?:\/\//).test(v),
    origin ? `${name} must be an http(s) URL with no path, e.g. ${origin.example}` : `${name} must be an http(s) URL`,
  );

/** A comma-separated list's items, trimmed, empty ones left out. */
const commaList = (v: string | undefined): string[] =>
  v === undefined
    ? []
    : v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);

const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    }, `${name} must be an http(s) URL`);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  BASE_URL: url("BASE_URL")
    .default("http://localhost:3000")
    .transform((v) => v.replace(/\/+$/, "")),
  SERVE_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, "SERVE_DOMAIN must be a host name with an optional port, e.g. drops.example.com")
    .default("localhost:3000"),
  DATA_DIR: z.string().trim().min(1).default(".data"),
  DATABASE_URL: optionalString.refine(
    (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
    "DATABASE_URL must be a postgres:// or postgresql:// URL",
  ),
  BLOB_READ_WRITE_TOKEN: optionalString.refine(
    (v) => v === undefined || /^vercel_blob_rw_[^_]+_.+$/.test(v),
    "BLOB_READ_WRITE_TOKEN must look like vercel_blob_rw_<store>_<secret>",
  ),
  /**
   * The Vercel Blob API base (the SDK reads the same variable); direct upload targets point at it.
   * Default Vercel's; tests point it at a local stand-in.
   */
  VERCEL_BLOB_API_URL: optionalHttpUrl("VERCEL_BLOB_API_URL"),
  /**
   * An S3-compatible bucket for drop bytes (AWS S3, R2, MinIO, Garage); wins over
   * BLOB_READ_WRITE_TOKEN. The rest of S3_* say where it is and how to sign in.
   */
  S3_BUCKET: optionalString,
  /** The S3 API endpoint (R2: https://<account>.r2.cloudflarestorage.com); absent, AWS's for S3_REGION. */
  S3_ENDPOINT: optionalHttpUrl("S3_ENDPOINT"),
  S3_REGION: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** Bucket in the URL path instead of the host name (MinIO, Garage and most self-hosted stores). */
  S3_FORCE_PATH_STYLE: z
    .enum(["1", "0", "true", "false", ""], { error: "S3_FORCE_PATH_STYLE must be 1, 0, true or false" })
    .optional()
    .transform((v) => v === "1" || v === "true"),
  UPSTASH_REDIS_REST_URL: optionalHttpUrl("UPSTASH_REDIS_REST_URL"),
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  /** A Redis server of one's own for the rate limits (redis:// or rediss://); wins over Upstash. */
  REDIS_URL: optionalString.refine(
    (v) => v === undefined || /^rediss?:\/\//.test(v),
    "REDIS_URL must be a redis:// or rediss:// URL",
  ),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_PRO: optionalString,
  STRIPE_PRICE_TEAM: optionalString,
  /** Where the Stripe SDK sends API calls (tests point it at a local stand-in); default api.stripe.com. */
  STRIPE_API_BASE: optionalHttpUrl("STRIPE_API_BASE", { example: "http://localhost:12111" }),
  NEXTAUTH_SECRET: optionalString,
  NEXTAUTH_URL: optionalString,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  OIDC_ISSUER: optionalHttpUrl("OIDC_ISSUER"),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  ID_TOKEN_AUDIENCES: optionalString.transform(commaList),
  CRON_SECRET: optionalString,
  TRUST_PROXY: bool.default(false),
  /** How many proxies in front of the app append to X-Forwarded-For (with TRUST_PROXY). */
  TRUST_PROXY_HOPS: z.coerce
    .number({ error: "TRUST_PROXY_HOPS must be a whole number" })
    .int("TRUST_PROXY_HOPS must be a whole number")
    .min(1, "TRUST_PROXY_HOPS must be at least 1")
    .max(10, "TRUST_PROXY_HOPS must be at most 10")
    .default(1),
  /** Set by Vercel on its functions: the client address is then the platform's x-real-ip. */
  VERCEL: optionalString,
  /** The operator states that SERVE_DOMAIN is on the Public Suffix List (see the README). */
  SERVE_DOMAIN_PUBLIC_SUFFIX: bool.default(false),
  /**
   * Browser origins (scheme://host[:port]) allowed to call POST /mcp, comma-separated; the
   * origin of BASE_URL is always allowed. Requests with any other Origin answer 403.
   */
  MCP_ALLOWED_ORIGINS: optionalString.transform((v, c) => {
    const out: string[] = [];
    for (const item of commaList(v)) {
      let origin: string | undefined;
      try {
        const u = new URL(item);
        if ((u.protocol === "http:" || u.protocol === "https:") && u.origin === item.replace(/\/+$/, ""))
          origin = u.origin;
      } catch {
        /* reported below */
      }
      if (origin === undefined) {
        c.addIssue({
          code: "custom",
          message: `MCP_ALLOWED_ORIGINS: "${item}" is not an origin like https://agent.example.com (scheme, host, optional port, no path)`,
        });
        return z.NEVER;
      }
      out.push(origin);
    }
    return out;
  }),
  /**
   * Lifts the webhook URL rules (https only; no loopback, private, link-local, multicast or
   * metadata address, at creation and at every delivery): for receivers on a private network
   * of a self-hosted server, and for tests. Nothing else lifts them.
   */
  WEBHOOKS_ALLOW_PRIVATE: bool.default(false),
  RATE_LIMIT_DEPLOYS_PER_MINUTE: z.coerce
    .number({ error: "RATE_LIMIT_DEPLOYS_PER_MINUTE must be a whole number" })
    .int("RATE_LIMIT_DEPLOYS_PER_MINUTE must be a whole number")
    .min(1, "RATE_LIMIT_DEPLOYS_PER_MINUTE must be at least 1")
    .default(10),
  /**
   * A CDN in front of a self-hosted install: drop responses also carry CDN-Cache-Control and
   * Cache-Tag (the drop's tag; on preview hosts the version's and alias's too), with the bounds of Vercel-CDN-Cache-Control.
   */
  CDN_CACHE: bool.default(false),
  /**
   * Counts per drop and day made by the data plane (lib/stats: views, visitors, requests …);
   * off: nothing is counted, and HTML keeps the CDN lifetime of other files.
   */
  STATS: bool.default(true),
  /** Receives a POST of {"tags": [...]} for every change to a drop, before the change answers. */
  CDN_PURGE_URL: optionalHttpUrl("CDN_PURGE_URL"),
  /** Sent as `Authorization: Bearer <token>` with each purge (e.g. a Cloudflare API token). */
  CDN_PURGE_TOKEN: optionalString,
  /**
   * Workers `npm start` runs on one port (node:cluster); above 1 needs DATABASE_URL (the
   * embedded PGlite is one process's).
   */
  WEB_CONCURRENCY: optionalString
    .refine(
      (v) => v === undefined || /^[1-9][0-9]*$/.test(v),
      "WEB_CONCURRENCY must be a positive whole number (the workers of npm start), e.g. 2",
    )
    .refine(
      (v) => v === undefined || !/^[1-9][0-9]*$/.test(v) || Number(v) <= 256,
      "WEB_CONCURRENCY must be at most 256",
    )
    .transform((v) => (v === undefined ? 1 : Number(v))),
  /**
   * DNS servers for the custom domains' TXT look-ups, comma-separated ip[:port] as
   * dns.setServers takes them ([v6]:port for IPv6 with a port); unset: the system's.
   */
  DNS_SERVERS: optionalString.transform((v, c) => {
    const out: string[] = [];
    for (const item of commaList(v)) {
      const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/.exec(item) ?? /^([0-9a-fA-F:]+)$/.exec(item);
      const ip = m ? (m[1] ?? m[2]) : undefined;
      const port = m?.[3] === undefined ? undefined : Number(m[3]);
      if (!ip || isIP(ip) === 0 || (port !== undefined && (port < 1 || port > 65535))) {
        c.addIssue({
          code: "custom",
          message: `DNS_SERVERS: "${item}" is not an address like 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53`,
        });
        return z.NEVER;
      }
      out.push(item);
    }
    return out;
  }),
  /**
   * Outgoing mail (the one-time sign-in links of emails-only drops), through nodemailer:
   * smtp:// or smtps://, with user and password in the URL when the server wants them.
   */
  SMTP_URL: optionalString.refine(
    (v) => v === undefined || /^smtps?:\/\/[^/?#]+/.test(v),
    "SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@smtp.example.com:587",
  ),
  /** The From of that mail: an address, or `Name <address>`. */
  MAIL_FROM: optionalString.refine(
    (v) => v === undefined || /^(?:[^<>@\s][^<>]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(v),
    "MAIL_FROM must be an address or Name <address>, e.g. Dropsite <no-reply@example.com>",
  ),
  /** A Vercel access token: with VERCEL_PROJECT_ID set, verified custom domains are added to that project (TLS). */
  VERCEL_TOKEN: optionalString,
  VERCEL_PROJECT_ID: optionalString,
  /** The Vercel team that owns the project, when it is a team's. */
  VERCEL_TEAM_ID: optionalString,
  /** The Vercel REST API base; default https://api.vercel.com (tests point it at a local stand-in). */
  VERCEL_API_URL: optionalHttpUrl("VERCEL_API_URL", { example: "https://api.vercel.com" }),
  /**
   * Operators: accounts whose email is in this comma list (case-insensitive), when the identity
   * provider vouched for the email (email_verified). `npm run admin -- grant-admin` adds others.
   */
  ADMIN_EMAILS: optionalString.transform((v) => commaList(v).map((e) => e.toLowerCase())),
  /** Memory for drop contents kept by hash on the serve path (raw and compressed); 0 turns it off. */
  SERVE_CACHE_BYTES: z.coerce
    .number({ error: "SERVE_CACHE_BYTES must be a whole number of bytes" })
    .int("SERVE_CACHE_BYTES must be a whole number of bytes")
    .min(0, "SERVE_CACHE_BYTES must be at least 0")
    .default(64 * 1024 * 1024),
  /** A listener of its own serving GET /metrics (Prometheus), on METRICS_HOST; unset: none. */
  METRICS_PORT: optionalString
    .refine(
      (v) => v === undefined || (/^[0-9]{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535),
      "METRICS_PORT must be a port number (1-65535), e.g. 9464",
    )
    .transform((v) => (v === undefined ? undefined : Number(v))),
  /** The address METRICS_PORT binds; loopback by default (the metrics answer without a token). */
  METRICS_HOST: z.string().trim().min(1).default("127.0.0.1"),
  /** Serves GET /metrics on the app host to `Authorization: Bearer <token>`; unset: no such route. */
  METRICS_TOKEN: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    "METRICS_TOKEN must be at least 16 characters",
  ),
  /** json (default): one JSON object a line; text: a readable line, for development. */
  LOG_FORMAT: z.enum(["json", "text"], { error: "LOG_FORMAT must be json or text" }).default("json"),
  /** OpenTelemetry (OTLP over HTTP, protobuf): traces are sent when either endpoint is set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalHttpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  /** true turns tracing off whatever the endpoints say. */
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_SERVICE_NAME: z.string().trim().min(1).default("dropsite"),
  /** The deploy scan (docs/scanning.md): unset, it refuses anonymous deploys with a severe finding; `report` never refuses; `off` does not scan. */
  SCAN: z
    .enum(["on", "report", "off", ""], { error: "SCAN must be off or report (unset: scan and refuse)" })
    .optional()
    .transform((v) => (v === undefined || v === "" ? "on" : v)),
  /** Brands a password page may not name (comma list); replaces the default list. */
  SCAN_BRANDS: optionalString.transform((v) => (v === undefined ? undefined : commaList(v))),
  /** A Google Web Risk API key: the URLs a drop links to are looked up (uris.search). */
  WEB_RISK_API_KEY: optionalString,
  /** The Web Risk API base; default https://webrisk.googleapis.com (tests point it at a stand-in). */
  WEB_RISK_API_URL: optionalHttpUrl("WEB_RISK_API_URL", { example: "https://webrisk.googleapis.com" }),
  /**
   * The render check's browser: a local Chromium executable (Debian's /usr/bin/chromium, or the
   * one `npx playwright install chromium` downloads). RENDER_CDP_URL wins when both are set.
   */
  RENDER_BROWSER_PATH: optionalString,
  /** A remote Chromium over the DevTools protocol (ws:// or wss://, or its http(s):// endpoint), e.g. on Vercel. */
  RENDER_CDP_URL: optionalString.refine(
    (v) => v === undefined || /^(wss?|https?):\/\//.test(v),
    "RENDER_CDP_URL must be a ws://, wss://, http:// or https:// URL of a Chromium DevTools endpoint",
  ),
  /** Render checks one process runs at once; more wait in a queue. */
  RENDER_CONCURRENCY: z.coerce
    .number({ error: "RENDER_CONCURRENCY must be a whole number" })
    .int("RENDER_CONCURRENCY must be a whole number")
    .min(1, "RENDER_CONCURRENCY must be at least 1")
    .max(32, "RENDER_CONCURRENCY must be at most 32")
    .default(2),
});

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {}

/** Parses a record of variables; throws EnvError naming every malformed variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  if (env.UPSTASH_REDIS_REST_URL && !env.UPSTASH_REDIS_REST_TOKEN) {
    throw new EnvError(
      "Invalid configuration:\n  UPSTASH_REDIS_REST_TOKEN: required when UPSTASH_REDIS_REST_URL is set",
    );
  }
  if (env.WEB_CONCURRENCY > 1 && !env.DATABASE_URL) {
    throw new EnvError(
      `Invalid configuration:\n  WEB_CONCURRENCY: ${env.WEB_CONCURRENCY} workers need a database they can share: set DATABASE_URL (PostgreSQL). ` +
        "The embedded PGlite belongs to one process; without DATABASE_URL run one worker (unset WEB_CONCURRENCY or set it to 1).",
    );
  }
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    throw new EnvError(
      "Invalid configuration:\n  S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither (the SDK's default credentials)",
    );
  }
  const shared = sharedRegistrableDomain(env);
  if (shared && env.NODE_ENV === "production" && !env.SERVE_DOMAIN_PUBLIC_SUFFIX) {
    throw new EnvError(
      `Invalid configuration:\n  SERVE_DOMAIN: drops (*.${env.SERVE_DOMAIN}) and the app (${new URL(env.BASE_URL).hostname}) share the registrable domain ${shared}, ` +
        "so a drop could set cookies the app reads. Serve drops from a domain of their own, or put SERVE_DOMAIN on the Public Suffix List " +
        "and set SERVE_DOMAIN_PUBLIC_SUFFIX=1 (see the README).",
    );
  }
  return env;
}

// Per module copy (the data plane's bundle and Next's each parse once): the same process.env
// gives the same result, so nothing needs sharing.
let cached: Env | undefined;

/** The process configuration, parsed once. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Drops the cached configuration (tests change process.env between cases). */
export function resetEnv(): void {
  cached = undefined;
}

/** Scheme of public URLs, taken from BASE_URL. */
export function publicScheme(e: Env = env()): string {
  return new URL(e.BASE_URL).protocol.replace(":", "");
}

/** The public URL of a drop host label, e.g. https://abc.drops.example.com/ */
export function dropUrl(label: string, e: Env = env()): string {
  return `${publicScheme(e)}://${label}.${e.SERVE_DOMAIN}/`;
}

/**
 * Whether this server runs on a developer's machine: BASE_URL on localhost. Only then does
 * login offer the local-developer sign-in (when no provider is configured) and the session
 * secret get generated per data dir.
 */
export function isLocalDeployment(e: Env = env()): boolean {
  const host = new URL(e.BASE_URL).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/**
 * The registrable domain (public suffix + one label, private PSL entries included) that the
 * app host and the drop hosts share, or null. Local hosts and IP addresses share none.
 */
export function sharedRegistrableDomain(e: Pick<Env, "BASE_URL" | "SERVE_DOMAIN">): string | null {
  const appHost = new URL(e.BASE_URL).hostname;
  const serveHost = e.SERVE_DOMAIN.replace(/:\d+$/, "");
  const opts = { allowPrivateDomains: true };
  const app = getDomain(appHost, opts);
  // A drop host is <label>.SERVE_DOMAIN; its registrable domain is at least SERVE_DOMAIN's.
  const drop = getDomain(`x.${serveHost}`, opts);
  if (!app || !drop || app.endsWith(".localhost") || app === "localhost") return null;
  return app === drop ? app : null;
}
