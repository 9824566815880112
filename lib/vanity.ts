import { z } from "zod";
import type { AppContext } from "./context";
import { isUniqueViolation } from "./db/queries";
import type { AccountRow } from "./db/schema";
import { setVanitySub } from "./db/vanity";
import { isTeamSlug } from "./db/teams";
import { withDb } from "./db/errors";
import { publicScheme } from "./env";
import { ApiError, upstreamUnavailable } from "./errors";
import { readJson } from "./http";
import { limits } from "./plans";
import { vanityBodySchema, type VanityClaimResponse, type VanityResponse } from "./schemas";
import { RESERVED_LABELS } from "./patterns";

// Vanity subdomains: one per Team account, first come first served. Named drops of the account
// then serve at <sub>--<name>.<SERVE_DOMAIN>; lib/serve looks them up through lib/db/serving.ts.

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
    throw ApiError.fromZod(parsed.error, "The body", {
      hint: "Pick 3 to 20 lowercase letters, digits or single hyphens, starting and ending with a letter or digit, e.g. acme or my-team.",
      docs: "vanity",
    });
  }
  const { sub } = parsed.data;
  if (RESERVED_LABELS.has(sub)) {
    throw new ApiError("invalid_request", `The sub ${sub} is reserved.`, {
      hint: "Pick another sub; a few names (www, api, docs …) are kept for the service.",
      docs: "vanity",
    });
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
      hint: 'Upgrade to the team plan (POST /billing/checkout with {"plan":"team"}); see upgrade_url.',
      upgrade: true,
      docs: "vanity",
    });
  }
  const sub = parseVanitySub(body);
  if (account.vanitySub) throw alreadyHasOne(account.vanitySub);
  // Team slugs share the namespace (lib/teams/teams.ts checks the other way).
  if (await withDb(() => isTeamSlug(ctx.db, sub))) throw taken(sub);
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
  return new ApiError(
    "conflict",
    current
      ? `This account already has the vanity subdomain ${current}.`
      : "This account already has a vanity subdomain.",
    {
      hint: "Each account has one vanity subdomain; GET /vanity shows it.",
      docs: "vanity",
    },
  );
}
