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

// PUT /drops/{slug}/access and MCP set_access: make an owned drop public or password-protected.
// Every plan may; anonymous drops have no owner and cannot be protected (404 like any drop that
// is not the caller's). Every call bumps the drop's policy version, revoking every unlock cookie.

/** Parses the body of PUT /drops/{slug}/access (and set_access's arguments); 400 when invalid. */
export function parseAccessBody(input: unknown) {
  const parsed = accessBodySchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : "body";
  const why =
    field === "password"
      ? (issue?.message ?? "invalid")
      : 'send {"mode": "public"} or {"mode": "password", "password": "…"}';
  throw new ApiError("invalid_request", `Invalid access: ${field}: ${why}.`, { docs: "access" });
}

/** The JSON body of PUT /drops/{slug}/access, unparsed (setAccess checks it). */
export function readAccessBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
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
  const passwordHash = body.mode === "password" ? await hashPassword(body.password) : null;
  const access =
    passwordHash === null ? { mode: "public" as const, passwordHash } : { mode: "password" as const, passwordHash };
  const row = await withDb(() => setDropAccessRow(ctx.db, drop.id, account.id, access, new Date(ctx.now())));
  if (!row) throw new ApiError("not_found", `No drop ${drop.slug} in this account.`);
  // A drop that becomes protected leaves the CDN before this answers: no cached copy outlives it.
  await dropChanged(ctx, drop, body.mode === "password" ? "protect" : "access");
  return { slug: drop.slug, mode: row.accessMode };
}
