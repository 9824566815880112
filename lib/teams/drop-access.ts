import type { AppContext } from "../context";
import { findDropBySlug } from "../db/queries";
import { withDb } from "../db/errors";
import { findMemberRole, findTeamByAccount } from "../db/teams";
import type { AccountRow } from "../db/schema";
import { dropUrl, publicScheme } from "../env";
import { findDropVersion } from "../db/serving";
import { previewLabel, resolveHost } from "../serve/host";
import { safeReturnPath, UNLOCK_PATH } from "../serve/access";
import { issueMemberToken } from "../serve/member-token";

// GET BASE_URL/access/members?drop=<slug>&return=<path> – the app host's side of a members-only
// drop (DESIGN "Teams"): the drop host sends a visitor without the drop's cookie here, where the
// session says who they are. Without a session: the login page, which comes back here. A member
// of the owning team (any role): 302 to the drop host's unlock path with a one-time token. A
// person who is not: 403 with a page saying so, and nothing of the drop.

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

const STYLE =
  "*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#1f2328;background:#f6f8fa}" +
  "main{width:100%;max-width:32rem;padding:1.5rem}h1{font-size:1.4rem;margin:0 0 .5rem}a{color:#0b57d0}" +
  "a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const noStore = { "Cache-Control": "private, no-store", "X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer" };

function page(status: number, title: string, paragraphs: string[]): Response {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)} · dropsite</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("")}</main></body></html>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8", ...noStore } });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location, ...noStore } });
}

/**
 * The host a visitor came from when it is another of this drop's hosts (one of its preview hosts,
 * its vanity host or an active custom domain, looked up as the serve path looks them up); null
 * for any other value, so no one can have a token sent to a host of their choosing.
 */
async function dropHost(
  ctx: AppContext,
  drop: { id: string; slug: string },
  raw: string | null,
): Promise<string | null> {
  if (!raw) return null;
  const action = resolveHost(raw, { serveDomain: ctx.env.SERVE_DOMAIN, appHost: new URL(ctx.env.BASE_URL).host });
  if (action.kind === "preview") {
    const label = action.slug === drop.slug ? previewLabel(action.slug, action.selector) : null;
    return label ? `${label}.${ctx.env.SERVE_DOMAIN}` : null;
  }
  if (action.kind !== "vanity" && action.kind !== "custom") return null;
  const key = action.kind === "custom" ? { domain: action.hostname } : { sub: action.sub, name: action.name };
  const found = await withDb(() => findDropVersion(ctx.db, key));
  if (found?.id !== drop.id) return null;
  // The host as the service spells it, never the raw value.
  return action.kind === "custom" ? action.hostname : `${action.sub}--${action.name}.${ctx.env.SERVE_DOMAIN}`;
}

/** The answer of /access/members for `person` (null without a session); `url` is the request's. */
export async function membersEntry(ctx: AppContext, person: AccountRow | null, url: URL): Promise<Response> {
  const slug = url.searchParams.get("drop") ?? "";
  const returnTo = safeReturnPath(url.searchParams.get("return") ?? "/");
  const drop = SLUG.test(slug) ? await withDb(() => findDropBySlug(ctx.db, slug)) : undefined;
  if (!drop || drop.accessMode !== "members" || drop.ownerId === null)
    return page(404, "No such members-only site", [
      "The link names no site that is open to a team's members. Check the address you were given.",
    ]);
  const host = await dropHost(ctx, drop, url.searchParams.get("host"));
  const here = `/access/members?${new URLSearchParams({ drop: drop.slug, return: returnTo, ...(host ? { host } : {}) }).toString()}`;
  if (!person) return redirect(`/login?${new URLSearchParams({ next: here }).toString()}`);
  const team = await withDb(() => findTeamByAccount(ctx.db, drop.ownerId!));
  const role = team ? await withDb(() => findMemberRole(ctx.db, team.id, person.id)) : undefined;
  if (!team || !role)
    return page(403, "Only the team's members can see this site", [
      `You are logged in as <strong>${escapeHtml(person.email ?? person.id)}</strong>, who is not a member of the team that owns it.`,
      "Ask an admin of the team for an invitation, or log in with the account that is a member.",
      `<a href="/dashboard">Go to your dashboard</a>`,
    ]);
  const token = await issueMemberToken(ctx, drop, person.id);
  const unlock = new URL(UNLOCK_PATH, host ? `${publicScheme(ctx.env)}://${host}/` : dropUrl(drop.slug, ctx.env));
  unlock.search = new URLSearchParams({ token, return: returnTo }).toString();
  return redirect(unlock.toString());
}
