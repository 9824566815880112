import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { AppContext } from "./context";
import type { Db } from "./db/client";
import { findServable, isUniqueViolation, type ServableDrop } from "./db/queries";
import { accounts, type AccountRow } from "./db/schema";
import { publicScheme } from "./env";
import { ApiError, upstreamUnavailable } from "./errors";
import { readJson } from "./http";
import { limits } from "./plans";
import { vanityBodySchema, type VanityClaimResponse, type VanityResponse } from "./schemas";
import { RESERVED_LABELS } from "./serve/host";

// Vanity subdomains: one per Team account, first come first served. Named drops of the account
// then serve at <sub>--<name>.<SERVE_DOMAIN>.

async function findAccountByVanity(db: Db, sub: string): Promise<Pick<AccountRow, "id"> | undefined> {
  const [row] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.vanitySub, sub)).limit(1);
  return row;
}

/** Sets the account's sub if it has none; false when it already has one. A taken sub throws a unique violation. */
async function setVanitySub(db: Db, accountId: string, sub: string): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ vanitySub: sub })
    .where(and(eq(accounts.id, accountId), isNull(accounts.vanitySub)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** The serving address pattern of a sub, with <name> standing for a named drop. */
export function serveBase(ctx: AppContext, sub: string): string {
  return `${publicScheme(ctx.env)}://${sub}--<name>.${ctx.env.SERVE_DOMAIN}/`;
}

// GET /vanity – the account's sub, null when it has none.
export function getVanity(account: AccountRow): VanityResponse {
  return { sub: account.vanitySub };
}

/** Checks a claimed sub; the 400s of POST /vanity. */
export function parseVanitySub(body: unknown): string {
  const parsed = vanityBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError("invalid_request", `Invalid sub: ${issue?.message ?? "invalid"}.`, {
      hint: "Pick 3 to 20 lowercase letters, digits or single hyphens, starting and ending with a letter or digit, e.g. acme or my-team.",
      docs: "vanity",
    });
  }
  const { sub } = parsed.data;
  if (RESERVED_LABELS.has(sub)) {
    throw new ApiError("invalid_request", `The sub ${sub} is reserved.`, { hint: "Pick another sub; a few names (www, api, docs …) are kept for the service.", docs: "vanity" });
  }
  return sub;
}

/** The JSON body of POST /vanity, unchecked: claimVanity checks the plan before the sub. */
export function readVanityBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
}

// POST /vanity – claim a sub for the account (Team plan).
export async function claimVanity(ctx: AppContext, account: AccountRow, body: unknown): Promise<VanityClaimResponse> {
  if (!limits[account.plan].vanity) {
    throw new ApiError("subscription_required", "Vanity subdomains are part of the Team plan.", {
      hint: "Upgrade to the team plan (POST /billing/checkout with {\"plan\":\"team\"}); see upgrade_url.",
      upgrade: true,
      docs: "vanity",
    });
  }
  const sub = parseVanitySub(body);
  if (account.vanitySub) throw alreadyHasOne(account.vanitySub);
  let claimed: boolean;
  try {
    claimed = await setVanitySub(ctx.db, account.id, sub);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(sub);
    throw upstreamUnavailable("database", err);
  }
  // Zero rows: a concurrent request of this account claimed a sub first.
  if (!claimed) throw alreadyHasOne(null);
  return { sub, serve_base: serveBase(ctx, sub) };
}

function taken(sub: string): ApiError {
  return new ApiError("conflict", `The sub ${sub} is already taken.`, { hint: "Pick another sub.", docs: "vanity" });
}

function alreadyHasOne(current: string | null): ApiError {
  return new ApiError("conflict", current ? `This account already has the vanity subdomain ${current}.` : "This account already has a vanity subdomain.", {
    hint: "Each account has one vanity subdomain; GET /vanity shows it.",
    docs: "vanity",
  });
}

/**
 * The drop a vanity host <sub>--<name> serves: the named drop `name` of the account owning `sub`.
 * Undefined for reserved or unclaimed subs and for names the account does not have.
 */
export async function vanityLookup(ctx: AppContext, sub: string, name: string, paths: string[]): Promise<ServableDrop | undefined> {
  if (RESERVED_LABELS.has(sub)) return undefined;
  const owner = await findAccountByVanity(ctx.db, sub);
  if (!owner) return undefined;
  return findServable(ctx.db, { ownerId: owner.id, name }, paths);
}
