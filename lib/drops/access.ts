import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { setDropAccessRow } from "../db/access";
import { withDb } from "../db/errors";
import { ApiError } from "../errors";
import { readJson } from "../http";
import { z } from "zod";
import { accessBodySchema, type AccessResponse } from "../schemas";
import { dropChanged } from "../serve/cache";
import { ownedDrop } from "./manage";
import { refuseDisabled } from "../safety/disabled";
import { hashPassword } from "../access/password";
import { findTeamByAccount } from "../db/teams";
import { missingMailVariables } from "../mail";

// PUT /drops/{slug}/access and MCP set_access: make an owned drop public, password-protected, or
// members-only (a team's drop only). Every plan may; anonymous drops have no owner and cannot be
// protected (404 like any drop that is not the caller's). Every call bumps the drop's policy
// version, revoking every unlock cookie.

/** Parses the body of PUT /drops/{slug}/access (and set_access's arguments); 400 when invalid. */
export function parseAccessBody(input: unknown) {
  const parsed = accessBodySchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : "body";
  const why =
    field === "password" || field.startsWith("allow")
      ? (issue?.message ?? "invalid")
      : 'send {"mode": "public"}, {"mode": "password", "password": "…"}, {"mode": "members"} or {"mode": "emails", "allow": ["ana@example.org", "@client.com"]}';
  throw new ApiError("invalid_request", `Invalid access: ${field}: ${why}.`, { docs: "access" });
}

/** The JSON body of PUT /drops/{slug}/access, unparsed (setAccess checks it). */
export function readAccessBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
}

/** The team whose account this is (members-only drops are a team's), or null for a person's own. */
export async function owningTeam(ctx: AppContext, account: AccountRow): Promise<{ slug: string; name: string } | null> {
  const team = await withDb(() => findTeamByAccount(ctx.db, account.id));
  return team ? { slug: team.slug, name: team.name } : null;
}

export async function setAccess(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  input: unknown,
): Promise<AccessResponse> {
  const body = parseAccessBody(input);
  const drop = await ownedDrop(ctx, account, slug);
  refuseDisabled(drop);
  if (body.mode === "members" && !(await owningTeam(ctx, account)))
    throw new ApiError(
      "invalid_request",
      `Invalid access: mode: members is for a team's drops, and ${drop.slug} belongs to no team.`,
      { hint: 'Deploy it as a team (a team key), or choose "public" or "password".', docs: "access" },
    );
  const missing = body.mode === "emails" ? missingMailVariables(ctx.env) : [];
  if (missing.length > 0)
    throw new ApiError(
      "invalid_request",
      `Invalid access: mode: emails sends one-time sign-in links by mail, and this server has no mail configured (${missing.join(" and ")} unset).`,
      {
        hint: "The operator sets SMTP_URL (e.g. smtp://user:pass@smtp.example.com:587) and MAIL_FROM (the sender's address); until then choose public, password or members.",
        docs: "access",
      },
    );
  const access =
    body.mode === "password"
      ? { mode: body.mode, passwordHash: await hashPassword(body.password) }
      : body.mode === "emails"
        ? { mode: body.mode, passwordHash: null, allow: body.allow }
        : { mode: body.mode, passwordHash: null };
  const row = await withDb(() => setDropAccessRow(ctx.db, drop.id, account.id, access, new Date(ctx.now())));
  if (!row) throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  // A drop that becomes protected leaves the CDN before this answers: no cached copy outlives it.
  await dropChanged(ctx, drop, body.mode === "public" ? "access" : "protect");
  return row.accessMode === "emails"
    ? { slug: drop.slug, mode: row.accessMode, allow: row.accessAllow ?? [] }
    : { slug: drop.slug, mode: row.accessMode };
}
