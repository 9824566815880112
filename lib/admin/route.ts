import { getContext, type AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { ApiError, notFound } from "../errors";
import { readJson, requireJsonBody } from "../http";
import { enforceLimit } from "../ratelimit/guard";
import { bearerCredential, callerFromCredential } from "../auth/caller";
import { sessionPerson } from "../auth/session";
import { isSafeMethod, refuseOtherOrigins } from "../auth/origin";
import { isOperator } from "./operators";

export type OperatorHandler<P> = (args: {
  req: Request;
  params: P;
  ctx: AppContext;
  operator: AccountRow;
}) => Promise<Response>;

/**
 * Wraps an /admin/* route: the caller (Bearer credential, else the session cookie) must be an
 * operator. Everyone else, a bad or missing credential included, gets 404 as if the route did
 * not exist.
 */
export function withOperator<P>(handler: OperatorHandler<P>) {
  return async (req: Request, params: P): Promise<Response> => {
    const ctx = await getContext();
    const operator = await operatorOf(ctx, req);
    if (!operator) throw notFound();
    await enforceLimit(ctx, "accountRoute", `operator:${operator.id}`);
    return handler({ req, params, ctx, operator });
  };
}

async function operatorOf(ctx: AppContext, req: Request): Promise<AccountRow | null> {
  const credential = bearerCredential(req);
  let account: AccountRow | null = null;
  try {
    if (credential === undefined) account = (await sessionPerson())?.account ?? null;
    else if (credential !== null) account = (await callerFromCredential(ctx, credential, "rest"))?.account ?? null;
  } catch (err) {
    // A dependency that is down is said as such; anything else about the caller is a 404.
    if (err instanceof ApiError && err.code === "upstream_unavailable") throw err;
    return null;
  }
  if (!isOperator(ctx.env, account)) return null;
  // The session cookie's writes come from the app's own pages only (403 once the caller is known
  // to be an operator: to everyone else the route still does not exist).
  if (credential === undefined && !isSafeMethod(req.method)) refuseOtherOrigins(ctx.env, req.headers);
  return account;
}

const anyJson = { safeParse: (v: unknown) => ({ success: true as const, data: v }) };

/** The JSON body of an operator route (validated by the action); `optional`: an empty body is {}. Only application/json. */
export function readOperatorBody(req: Request, optional = false): Promise<unknown> {
  requireJsonBody(req);
  return readJson(req, anyJson, { optional });
}

/** The query of a GET route as a plain record (the action's schema validates it). */
export function queryOf(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams);
}
