import { expect } from "vitest";
import type { AppContext } from "@/lib/context";
import { upsertAccount } from "@/lib/db/accounts";
import { mintKey } from "@/lib/auth/keys";
import type { AccountRow } from "@/lib/db/schema";
import type { TeamRole } from "@/lib/schemas";
import * as teamsRoute from "@/app/teams/route";
import * as joinRoute from "@/app/teams/join/route";
import * as teamRoute from "@/app/teams/[team]/route";
import * as membersRoute from "@/app/teams/[team]/members/route";
import * as memberRoute from "@/app/teams/[team]/members/[account]/route";
import * as invitesRoute from "@/app/teams/[team]/invites/route";
import * as inviteRoute from "@/app/teams/[team]/invites/[id]/route";
import * as auditRoute from "@/app/teams/[team]/audit/route";
import * as deployRoute from "@/app/deploy/route";
import { accountWithKey, bearer } from "./accounts";
import { apiRequest } from "./context";
import { registerSecret } from "./secrets";

// Calling the /teams routes in process as a person with an API key, and building a team with
// members of given roles through the real invitations.

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Module = Record<string, unknown>;

const ROUTES: [RegExp, Module][] = [
  [/^\/teams$/, teamsRoute],
  [/^\/teams\/join$/, joinRoute],
  [/^\/teams\/(?<team>[^/]+)$/, teamRoute],
  [/^\/teams\/(?<team>[^/]+)\/members$/, membersRoute],
  [/^\/teams\/(?<team>[^/]+)\/members\/(?<account>[^/]+)$/, memberRoute],
  [/^\/teams\/(?<team>[^/]+)\/invites$/, invitesRoute],
  [/^\/teams\/(?<team>[^/]+)\/invites\/(?<id>[^/]+)$/, inviteRoute],
  [/^\/teams\/(?<team>[^/]+)\/audit$/, auditRoute],
];

export interface Answer {
  status: number;
  // The body as JSON; tests read the fields they assert on.
  body: Record<string, unknown> & { code?: string };
}

/** A request to a /teams route answered by its route module; null for another path. */
export async function answerTeamRoute(request: Request, url: URL): Promise<Response | null> {
  for (const [re, mod] of ROUTES) {
    const m = re.exec(url.pathname);
    const handler = m && (mod[request.method] as Handler | undefined);
    if (handler) return handler(request, { params: Promise.resolve({ ...m.groups }) });
  }
  return null;
}

/** One request to a /teams route as the route file answers it (path with query, body as JSON). */
export async function teamCall(method: string, pathAndQuery: string, key?: string, body?: unknown): Promise<Answer> {
  const pathname = pathAndQuery.split("?")[0]!;
  const hit = ROUTES.map(([re, mod]) => [re.exec(pathname), mod] as const).find(([m]) => m);
  if (!hit) throw new Error(`no route for ${pathname}`);
  const [match, mod] = hit;
  const handler = mod[method] as Handler;
  const headers: Record<string, string> = key ? bearer(key) : {};
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(
    apiRequest(pathAndQuery, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({ ...match!.groups }) },
  );
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

export interface Person {
  account: AccountRow;
  apiKey: string;
  keyId: string;
}

/** A person with an API key whose login email the identity provider vouched for. */
export async function verifiedPerson(ctx: AppContext, plan: AccountRow["plan"] = "free"): Promise<Person> {
  const p = await accountWithKey(ctx, plan);
  const account = await upsertAccount(ctx.db, {
    id: p.account.id,
    issuer: p.account.issuer,
    subject: p.account.subject,
    email: p.account.email,
    emailVerified: true,
  });
  return { ...p, account: { ...account, plan } };
}

let seq = 0;
export const freshSlug = () => `t${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** An invitation's code, made by `by` (expected to succeed). */
export async function invite(
  slug: string,
  by: Person,
  role: TeamRole,
  email?: string,
): Promise<{ id: string; code: string }> {
  const res = await teamCall("POST", `/teams/${slug}/invites`, by.apiKey, email ? { role, email } : { role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  registerSecret("team invite code", res.body.code);
  return { id: res.body.id as string, code: res.body.code as string };
}

/** A team made by a Team-plan owner, with one person of each role asked for, each joined by invitation. */
export async function teamWith(
  ctx: AppContext,
  roles: TeamRole[],
): Promise<{ slug: string; owner: Person; people: Person[] }> {
  const owner = await verifiedPerson(ctx, "team");
  const slug = freshSlug();
  const created = await teamCall("POST", "/teams", owner.apiKey, { name: `Team ${slug}`, slug });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const people: Person[] = [];
  for (const role of roles) {
    const person = await verifiedPerson(ctx);
    const { code } = await invite(slug, owner, role);
    const joined = await teamCall("POST", "/teams/join", person.apiKey, { code });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    people.push(person);
  }
  return { slug, owner, people };
}

/** A team key of `who` for team `slug`, minted through the service as a logged-in session would. */
export async function teamKeyOf(ctx: AppContext, who: Person, slug: string, name = "ci"): Promise<string> {
  const minted = await mintKey(
    ctx,
    { account: who.account, via: "session", credentialKey: `session:${who.account.id}` },
    name,
    slug,
  );
  registerSecret("api key", minted.apiKey);
  return minted.apiKey;
}

let ip = 0;
/** A client address of its own for each in-process request (per-address limits stay out of the way). */
export const nextIp = () => `198.51.100.${(++ip % 200) + 20}`;

/** POST /deploy of a small HTML page with `key`, in process: its status and JSON body. */
export async function deployAs(key: string): Promise<{ status: number; body: { slug?: string; code?: string } }> {
  const res = await deployRoute.POST(
    apiRequest("/deploy", {
      method: "POST",
      body: "<p>team</p>",
      headers: { ...bearer(key), "content-type": "text/html" },
      ip: nextIp(),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, body: (await res.json()) as { slug?: string; code?: string } };
}
