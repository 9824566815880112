import { bodyForm } from "../deploy/body";

// The fixed name of each app-host route, the `route` label of the request metrics (and the name
// of a request's server span): `drops.list`, `deploy.json`, … A path that names no route is
// `other`; a path parameter, a query or anything else sent never becomes part of a name.
// Drop hosts are named by the data plane's serve kind (serve.drop, serve.vanity, serve.preview,
// serve.domain, serve.invalid_host), set by the dispatcher.

type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
/** A path pattern ({name} matches one non-empty segment, a trailing "*" any rest) and its names by method ("*": any). */
type Entry = [pattern: string, names: Partial<Record<Method | "*", string>>];

const APP_ROUTES: Entry[] = [
  ["/", { "*": "home" }],
  ["/healthz", { "*": "health" }],
  ["/limits", { "*": "limits.get" }],
  ["/openapi.json", { "*": "openapi" }],
  ["/drops", { "*": "drops.list" }],
  ["/drops/{slug}", { GET: "drops.get", HEAD: "drops.get", DELETE: "drops.delete" }],
  ["/drops/{slug}/access", { "*": "drops.access" }],
  ["/drops/{slug}/versions", { "*": "drops.versions" }],
  ["/drops/{slug}/rollback", { "*": "drops.rollback" }],
  ["/drops/{slug}/aliases", { "*": "drops.aliases" }],
  ["/drops/{slug}/aliases/{name}", { PUT: "drops.alias_set", DELETE: "drops.alias_delete" }],
  ["/drops/{slug}/review-links", { GET: "review.links", HEAD: "review.links", POST: "review.link_create" }],
  ["/drops/{slug}/review-links/{id}", { "*": "review.link_revoke" }],
  ["/drops/{slug}/comments", { GET: "review.comments", HEAD: "review.comments", POST: "review.comment_create" }],
  ["/drops/{slug}/comments/{id}", { "*": "review.comment_status" }],
  ["/drops/{slug}/comments/{id}/replies", { "*": "review.comment_reply" }],
  ["/deploy/preflight", { "*": "deploy.preflight" }],
  ["/deploy/once/{token}", { "*": "deploy.once" }],
  ["/deploy/once/{token}/preflight", { "*": "deploy.once_preflight" }],
  ["/deploy/uploads/{token}/{sha256}", { "*": "deploy.upload" }],
  ["/deploy/{slug}", { "*": "deploy.append" }],
  ["/claim", { "*": "claim" }],
  ["/keys", { GET: "keys.list", HEAD: "keys.list", POST: "keys.mint" }],
  ["/keys/{id}", { "*": "keys.revoke" }],
  ["/vanity", { GET: "vanity.get", HEAD: "vanity.get", POST: "vanity.claim" }],
  ["/teams", { GET: "teams.list", HEAD: "teams.list", POST: "teams.create" }],
  ["/teams/join", { "*": "teams.join" }],
  ["/teams/{team}", { "*": "teams.delete" }],
  ["/teams/{team}/members", { "*": "teams.members" }],
  ["/teams/{team}/members/{account}", { PATCH: "teams.member_role", DELETE: "teams.member_remove" }],
  ["/teams/{team}/invites", { GET: "teams.invites", HEAD: "teams.invites", POST: "teams.invite" }],
  ["/teams/{team}/invites/{id}", { "*": "teams.invite_revoke" }],
  ["/teams/{team}/audit", { "*": "teams.audit" }],
  ["/domains", { GET: "domains.list", HEAD: "domains.list", POST: "domains.add" }],
  ["/domains/tls-allowed", { "*": "domains.tls_allowed" }],
  ["/domains/{hostname}", { "*": "domains.remove" }],
  ["/domains/{hostname}/verify", { "*": "domains.verify" }],
  ["/webhooks", { GET: "webhooks.list", HEAD: "webhooks.list", POST: "webhooks.add" }],
  ["/webhooks/{id}", { "*": "webhooks.remove" }],
  ["/webhooks/{id}/deliveries", { "*": "webhooks.deliveries" }],
  ["/billing/me", { "*": "billing.me" }],
  ["/billing/checkout", { "*": "billing.checkout" }],
  ["/billing/portal", { "*": "billing.portal" }],
  ["/billing/webhook", { "*": "billing.webhook" }],
  ["/device/authorize", { "*": "device.authorize" }],
  ["/device/token", { "*": "device.token" }],
  ["/cron/cleanup", { "*": "cron.cleanup" }],
  ["/cron/webhooks", { "*": "cron.webhooks" }],
  ["/mcp", { "*": "mcp" }],
  ["/.well-known/*", { "*": "well_known" }],
  ["/api/oauth/*", { "*": "oauth" }],
  ["/api/auth/*", { "*": "auth" }],
  ["/login", { "*": "login" }],
  ["/dashboard/upload", { "*": "dashboard.upload" }],
  ["/dashboard/preflight", { "*": "dashboard.preflight" }],
  ["/dashboard", { "*": "dashboard" }],
  ["/dashboard/*", { "*": "dashboard" }],
  ["/docs/api", { "*": "docs.api" }],
  ["/docs", { "*": "docs" }],
  ["/docs/*", { "*": "docs" }],
  ["/_next/*", { "*": "next.static" }],
  ["/icon.svg", { "*": "static" }],
  ["/favicon.ico", { "*": "static" }],
];

interface Compiled {
  segments: (string | null)[];
  rest: boolean;
  names: Entry[1];
}

/** The table by first segment; within one, in the table's order (a literal before a parameter). */
const byFirst = new Map<string, Compiled[]>();
for (const [pattern, names] of APP_ROUTES) {
  const parts = pattern === "/" ? [""] : pattern.slice(1).split("/");
  const rest = parts[parts.length - 1] === "*";
  if (rest) parts.pop();
  const list = byFirst.get(parts[0]!) ?? [];
  byFirst.set(parts[0]!, list);
  list.push({ segments: parts.map((p) => (p.startsWith("{") ? null : p)), rest, names });
}

/** A name the route table gives every method and path it does not name. */
export const OTHER_ROUTE = "other";

/** The route name of an app-host request: its method, path (no query) and Content-Type. */
export function appRouteName(method: string, pathname: string, contentType?: string | null): string {
  // POST /deploy by its body's form: deploy.html, deploy.json, deploy.zip.
  if (pathname === "/deploy") return method === "POST" ? `deploy.${bodyForm(contentType ?? null)}` : OTHER_ROUTE;
  const parts = pathname.slice(1).split("/");
  const candidates = byFirst.get(parts[0]!);
  if (!candidates) return OTHER_ROUTE;
  next: for (const c of candidates) {
    if (c.rest ? parts.length <= c.segments.length : parts.length !== c.segments.length) continue;
    for (let i = 0; i < c.segments.length; i++) {
      const s = c.segments[i];
      if (s === null ? parts[i] === "" : s !== parts[i]) continue next;
    }
    return c.names[method as Method] ?? c.names["*"] ?? OTHER_ROUTE;
  }
  return OTHER_ROUTE;
}
