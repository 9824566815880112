import { JSON_BODY_CAP, routes, type RouteHandlers } from "./http";
import { limits } from "./plans";

// The one table of the HTTP surface that takes bodies: each route's method, path, the most body
// it accepts on any plan, the credential it reads and who answers it self-hosted. The route
// files bind their handlers through bodyRoutes() with the same path (so their methods and
// parameters come from here), the data plane (lib/plane/node.ts) refuses bodies past the cap
// and answers the rows marked `plane` itself, and routeBodyCap() serves lib/idempotency.ts.
// Every route of the app host that takes a body is in it, the API's and those outside it (the
// dashboard's, NextAuth's, the OAuth authorization server's): tests/unit/http-routes.test.ts
// checks it against the route files (every POST, PUT and PATCH handler has its row) and the
// OpenAPI document.

/**
 * Who may call: "none" (no credential: a signature or a device code in the body), "token" (the
 * secret token in the path is the grant), "optional" (anonymous, or an API key or ID token),
 * "account" (an API key or ID token), "idToken" (an ID token only), "mcp" (optional, or an
 * OAuth access token of the MCP authorization server), "session" (the dashboard's login cookie,
 * from the app's own origin), "review" (an account credential, or a review link's rl_ token on
 * its own drop: lib/review/reviewer.ts). Only lib/auth/caller.ts reads one.
 */
export type CredentialRule = "none" | "token" | "optional" | "account" | "idToken" | "mcp" | "session" | "review";

type BodyMethod = "POST" | "PUT" | "PATCH" | "DELETE";

export interface BodyRoute {
  method: BodyMethod;
  /**
   * The path with `{name}` parameters, as in the OpenAPI document (app/ folders spell them
   * `[name]`); a last `{...name}` matches the rest of the path (a catch-all, `[...name]`).
   */
  path: string;
  /** The most body bytes any plan may send; the handler then applies the caller's own plan cap. */
  cap: number;
  credential: CredentialRule;
  /** Self-hosted, the data plane runs the route's handler itself (the deploy bytes), not Next. */
  plane?: true;
  /** A refused body is answered as a JSON-RPC error object instead of the REST envelope. */
  refusal?: "jsonrpc";
  /**
   * Not a route of the API (so not in the OpenAPI document): the dashboard's own, NextAuth's
   * catch-all, or the OAuth authorization server's Pages API route (pages/api/oauth).
   */
  outside?: "dashboard" | "nextauth" | "oauth";
}

const largest = (pick: (l: (typeof limits)[keyof typeof limits]) => number) =>
  Math.max(...Object.values(limits).map(pick));
const DEPLOY_CAP = largest((l) => Math.max(l.zipBytes, l.bodyBytes));
const PREFLIGHT_CAP = largest((l) => l.bodyBytes);

/** First match wins: a literal segment is listed before a parameter in the same place. */
export const BODY_ROUTES = [
  { method: "POST", path: "/deploy", cap: DEPLOY_CAP, credential: "optional", plane: true },
  { method: "POST", path: "/deploy/preflight", cap: PREFLIGHT_CAP, credential: "optional" },
  { method: "POST", path: "/deploy/once/{token}", cap: DEPLOY_CAP, credential: "token", plane: true },
  { method: "POST", path: "/deploy/once/{token}/preflight", cap: PREFLIGHT_CAP, credential: "token" },
  {
    method: "PUT",
    path: "/deploy/uploads/{token}/{sha256}",
    cap: largest((l) => l.fileBytes),
    credential: "token",
    plane: true,
  },
  { method: "POST", path: "/deploy/{slug}", cap: DEPLOY_CAP, credential: "account", plane: true },
  { method: "POST", path: "/mcp", cap: PREFLIGHT_CAP + 256 * 1024, credential: "mcp", refusal: "jsonrpc" },
  { method: "POST", path: "/billing/webhook", cap: 1024 * 1024, credential: "none" },
  { method: "POST", path: "/billing/checkout", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/billing/portal", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/claim", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/keys", cap: JSON_BODY_CAP, credential: "idToken" },
  { method: "POST", path: "/vanity", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/domains", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/webhooks", cap: JSON_BODY_CAP, credential: "account" },
  { method: "PUT", path: "/drops/{slug}/access", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/drops/{slug}/share-links", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/drops/{slug}/rollback", cap: JSON_BODY_CAP, credential: "account" },
  { method: "PUT", path: "/drops/{slug}/aliases/{name}", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/drops/{slug}/review-links", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/drops/{slug}/comments", cap: JSON_BODY_CAP, credential: "review" },
  { method: "PATCH", path: "/drops/{slug}/comments/{id}", cap: JSON_BODY_CAP, credential: "review" },
  { method: "POST", path: "/drops/{slug}/comments/{id}/replies", cap: JSON_BODY_CAP, credential: "review" },
  { method: "POST", path: "/device/authorize", cap: JSON_BODY_CAP, credential: "none" },
  { method: "POST", path: "/device/token", cap: JSON_BODY_CAP, credential: "none" },
  { method: "POST", path: "/reports", cap: JSON_BODY_CAP, credential: "none" },
  { method: "POST", path: "/admin/reports/{id}/resolve", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/admin/drops/{slug}/disable", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/admin/drops/{slug}/enable", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/admin/accounts/{id}/suspend", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/admin/accounts/{id}/unsuspend", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/admin/blocks", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/teams", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/teams/join", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/teams/{team}/invites", cap: JSON_BODY_CAP, credential: "account" },
  { method: "PATCH", path: "/teams/{team}/members/{account}", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/domains/{hostname}/verify", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/drops/{slug}/render", cap: JSON_BODY_CAP, credential: "account" },
  { method: "POST", path: "/dashboard/upload", cap: DEPLOY_CAP, credential: "session", outside: "dashboard" },
  { method: "POST", path: "/dashboard/preflight", cap: PREFLIGHT_CAP, credential: "session", outside: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/connect/{uid}/decide",
    cap: JSON_BODY_CAP,
    credential: "session",
    outside: "dashboard",
  },
  // Sign-in forms and their callbacks; the token, registration and revocation endpoints (a few
  // form fields or a client's metadata).
  { method: "POST", path: "/api/auth/{...nextauth}", cap: JSON_BODY_CAP, credential: "none", outside: "nextauth" },
  { method: "POST", path: "/api/oauth/{...path}", cap: JSON_BODY_CAP, credential: "none", outside: "oauth" },
] as const satisfies readonly BodyRoute[];

type Row = (typeof BODY_ROUTES)[number];
type BodyPath = Row["path"];
/** The paths whose handlers the data plane runs itself. */
export type PlanePath = Extract<Row, { plane: true }>["path"];

type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? (N extends `...${infer R}` ? R : N) | ParamNames<Rest>
  : never;
/** The parameters of a path pattern: "/deploy/{slug}" → { slug: string }. */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string };

interface Path {
  /** The rows of this path, one per method. */
  rows: BodyRoute[];
  /** The path's segments; null where a parameter stands. */
  segments: (string | null)[];
  names: string[];
  /** The last parameter is a catch-all: it takes one or more segments. */
  rest: boolean;
  cap: number;
}

/**
 * The table's paths by their first segment ("deploy", "mcp", …), so a request tries only its
 * own few; within one, a literal segment goes before a parameter in the same place, and a
 * catch-all after the rest, as in Next's router ("/deploy/preflight" is not "/deploy/{slug}").
 */
const byFirst = new Map<string, Path[]>();
for (const row of BODY_ROUTES as readonly BodyRoute[]) {
  const parts = row.path.slice(1).split("/");
  const list = byFirst.get(parts[0]!) ?? [];
  byFirst.set(parts[0]!, list);
  const known = list.find((p) => p.rows[0]!.path === row.path);
  if (known) {
    known.rows.push(row);
    known.cap = Math.max(known.cap, row.cap);
    continue;
  }
  const segments = parts.map((p) => (p.startsWith("{") ? null : p));
  list.push({
    rows: [row],
    segments,
    names: parts.filter((p) => p.startsWith("{")).map((p) => p.slice(1, -1).replace(/^\.\.\./, "")),
    rest: parts.at(-1)!.startsWith("{..."),
    cap: row.cap,
  });
  list.sort((a, b) => {
    for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
      if ((a.segments[i] === null) !== (b.segments[i] === null)) return a.segments[i] === null ? 1 : -1;
    }
    return Number(a.rest) - Number(b.rest);
  });
}

interface BodyRouteMatch {
  /** The table's rows of the path the request names (one per method). */
  rows: BodyRoute[];
  /** The most body any of them accepts: a body sent with another method is held to it too. */
  cap: number;
  /** The path's parameters as sent (not decoded). */
  params: Record<string, string>;
}

/** The table's path a request path names (a parameter matches any non-empty segment), if any. */
export function matchBodyRoute(pathname: string): BodyRouteMatch | undefined {
  if (pathname.charCodeAt(0) !== 47 /* "/" */) return undefined;
  const parts = pathname.slice(1).split("/");
  const candidates = byFirst.get(parts[0]!);
  if (!candidates) return undefined;
  next: for (const p of candidates) {
    if (p.rest ? parts.length < p.segments.length : p.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let n = 0;
    for (let i = 0; i < p.segments.length; i++) {
      const s = p.segments[i];
      if (s === null) {
        const last = p.rest && i === p.segments.length - 1;
        const value = last ? parts.slice(i).join("/") : parts[i]!;
        if (value === "") continue next;
        params[p.names[n++]!] = value;
      } else if (s !== parts[i]) continue next;
    }
    return { rows: p.rows, cap: p.cap, params };
  }
  return undefined;
}

/** Every path of the table to its cap (the largest of its methods'), typed by the table's paths. */
const CAPS = Object.fromEntries([...byFirst.values()].flat().map((p) => [p.rows[0]!.path, p.cap])) as Readonly<
  Record<BodyPath, number>
>;

/** The cap of a path in the table (every method of one path shares it): the one number the handlers read. */
export function capOf(path: BodyPath): number {
  return CAPS[path];
}

/** The largest body any route of the table accepts on any plan (next.config.ts's proxy buffer sits above it). */
export const LARGEST_BODY_CAP = Math.max(...Object.values<number>(CAPS));

/**
 * The most body a route of the app host accepts on any plan, for the listener to refuse a larger
 * body before the framework reads (or buffers) any of it; the route's own cap for the caller's
 * plan applies after. Undefined: the path is not in the table and only its own cap applies.
 */
export function routeBodyCap(pathname: string): number | undefined {
  return matchBodyRoute(pathname)?.cap;
}

/**
 * The method exports of a route file in the table, through routes(): the handlers of its path,
 * their parameters typed from it; a method the table lists without a handler fails at load
 * (`next build` loads every route file).
 */
export function bodyRoutes<P extends BodyPath>(path: P, handlers: RouteHandlers<PathParams<P>>) {
  for (const row of BODY_ROUTES as readonly BodyRoute[]) {
    if (row.path === path && !handlers[row.method as keyof RouteHandlers])
      throw new Error(`${row.method} ${path} is in lib/http-routes.ts, but its route file has no handler for it`);
  }
  return routes<PathParams<P>>(handlers);
}
