import { ApiError } from "../errors";
import type { Caller } from "../auth/caller-types";
import { can, type TeamAction } from "./roles";

// What a caller acting as a team may reach, in one place (DESIGN "Teams"): each account route
// and each MCP tool names the class of action it takes, and a team caller whose role may not
// take it is refused (403 forbidden) before anything else is read. "own" routes check the role
// themselves against the team of their path or the key (/teams/…, /keys); "person" routes are
// a person's own business (billing's payment pages, device approval, the operators' routes) and
// refuse a team's credential. A route or tool missing here refuses a team's credential too.

type Gate = TeamAction | "own" | "person";

/**
 * Method and path as the OpenAPI document spells them (a last `{...name}` takes the rest of the
 * path, slashes included: a file's path); first match wins.
 */
export const TEAM_ROUTE_GATES = {
  "GET /limits": "read",
  "POST /deploy": "deploy",
  "POST /deploy/preflight": "deploy",
  "POST /deploy/{slug}": "deploy",
  "POST /claim": "deploy",
  "GET /drops": "read",
  "GET /drops/{slug}": "read",
  "DELETE /drops/{slug}": "delete",
  "GET /drops/{slug}/versions": "read",
  "POST /drops/{slug}/rollback": "deploy",
  "GET /drops/{slug}/aliases": "read",
  "PUT /drops/{slug}/aliases/{name}": "deploy",
  "DELETE /drops/{slug}/aliases/{name}": "deploy",
  "GET /drops/{slug}/review-links": "read",
  "POST /drops/{slug}/review-links": "deploy",
  "DELETE /drops/{slug}/review-links/{id}": "deploy",
  "GET /drops/{slug}/comments": "read",
  "POST /drops/{slug}/comments": "read",
  "POST /drops/{slug}/comments/{id}/replies": "read",
  "PATCH /drops/{slug}/comments/{id}": "deploy",
  "PUT /drops/{slug}/access": "deploy",
  "GET /drops/{slug}/stats": "read",
  "GET /drops/{slug}/viewers": "read",
  "POST /drops/{slug}/share-links": "deploy",
  "GET /drops/{slug}/share-links": "read",
  "DELETE /drops/{slug}/share-links/{id}": "deploy",
  "GET /drops/{slug}/files": "read",
  "GET /drops/{slug}/files/{...path}": "read",
  "GET /drops/{slug}/archive": "read",
  "GET /drops/{slug}/render": "read",
  "POST /drops/{slug}/render": "deploy",
  "GET /domains": "read",
  "POST /domains": "domains",
  "POST /domains/{hostname}/verify": "domains",
  "DELETE /domains/{hostname}": "domains",
  "GET /vanity": "read",
  "POST /vanity": "vanity",
  "GET /webhooks": "webhooks",
  "POST /webhooks": "webhooks",
  "DELETE /webhooks/{id}": "webhooks",
  "GET /webhooks/{id}/deliveries": "webhooks",
  "GET /billing/me": "billing",
  "POST /billing/checkout": "person",
  "POST /billing/portal": "person",
  "POST /reports": "read",
  "POST /mcp": "own",
  "GET /keys": "own",
  "POST /keys": "own",
  "DELETE /keys/{id}": "own",
  "GET /teams": "own",
  "POST /teams": "own",
  "POST /teams/join": "own",
  "DELETE /teams/{team}": "own",
  "GET /teams/{team}/members": "own",
  "PATCH /teams/{team}/members/{account}": "own",
  "DELETE /teams/{team}/members/{account}": "own",
  "GET /teams/{team}/invites": "own",
  "POST /teams/{team}/invites": "own",
  "DELETE /teams/{team}/invites/{id}": "own",
  "GET /teams/{team}/audit": "own",
} as const satisfies Record<string, Gate>;
/** A route of the table, as the dashboard's actions name the one whose gate they share. */
export type TeamRoute = keyof typeof TEAM_ROUTE_GATES;

/** Each MCP tool's class for a team caller (the /mcp route itself is "own": the tool decides). */
export const TEAM_TOOL_GATES: Record<string, Gate> = {
  get_limits: "read",
  device_authorize: "person",
  device_token: "person",
  deploy_html: "deploy",
  deploy_files: "deploy",
  deploy_named: "deploy",
  append_files: "deploy",
  preflight_files: "deploy",
  upload_content: "deploy",
  deploy_directory: "deploy",
  list_drops: "read",
  get_drop: "read",
  list_versions: "read",
  get_drop_stats: "read",
  rollback_drop: "deploy",
  set_alias: "deploy",
  list_aliases: "read",
  delete_alias: "deploy",
  list_comments: "read",
  reply_comment: "read",
  resolve_comment: "deploy",
  create_review_link: "deploy",
  list_files: "read",
  read_file: "read",
  set_access: "deploy",
  create_share_link: "deploy",
  delete_drop: "delete",
  add_domain: "domains",
  verify_domain: "domains",
  list_domains: "read",
  remove_domain: "domains",
  add_webhook: "webhooks",
  list_webhooks: "webhooks",
  remove_webhook: "webhooks",
  report_abuse: "read",
};

const ROUTE_MATCHERS = Object.entries(TEAM_ROUTE_GATES).map(([key, gate]) => {
  const [method = "", path = ""] = key.split(" ");
  const re = new RegExp(`^${path.replace(/\{\.\.\.[^}]+\}$/, ".+").replace(/\{[^}]+\}/g, "[^/]+")}$`);
  return { method, re, gate };
});

/** The gate of a request's method and path; undefined for a route not listed. */
export function routeGate(method: string, pathname: string): Gate | undefined {
  const m = method === "HEAD" ? "GET" : method;
  return ROUTE_MATCHERS.find((r) => r.method === m && r.re.test(pathname))?.gate;
}

function personOnly(): ApiError {
  return new ApiError("forbidden", "A team's credential cannot do this; it is a person's own.", {
    hint: "Use your own key, or act as yourself in the dashboard's switcher.",
    docs: "teams",
  });
}

/** How a refusal names each class of action ("Your role in this team (viewer) may not …"). */
const ACTION_WORDS: Record<TeamAction, string> = {
  read: "read the team's drops",
  deploy: "deploy or change the team's drops",
  delete: "delete the team's drops",
  domains: "change the team's domains",
  webhooks: "change the team's webhooks",
  vanity: "change the team's vanity name",
  keys: "manage the team's keys",
  invites: "manage invitations",
  members: "change members",
  audit: "read the audit log",
  billing: "manage the team's billing",
  owners: "change owners",
  deleteTeam: "delete the team",
};

function refusedRole(role: string, action: TeamAction): ApiError {
  return new ApiError("forbidden", `Your role in this team (${role}) may not ${ACTION_WORDS[action]}.`, {
    hint: "Ask an admin or owner of the team.",
    docs: "teams",
  });
}

/** Refuses a team caller a gate its role does not reach; a person's own caller passes. */
export function checkGate(caller: Caller, gate: Gate | undefined): void {
  const team = caller.team;
  if (!team || !caller.actor || gate === "own") return;
  if (gate === undefined || gate === "person") throw personOnly();
  if (!can(team.role, gate)) throw refusedRole(team.role, gate);
}
