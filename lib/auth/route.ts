import { getContext, type AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { requireCaller, type Caller } from "./caller";
import { guardAccountRoute } from "./guard";

export type AccountHandler<P> = (args: {
  req: Request;
  params: P;
  ctx: AppContext;
  caller: Caller & { account: AccountRow };
}) => Promise<Response>;

/** Wraps an account route: a valid credential, then the per-credential rate limit. */
export function withAccount<P>(handler: AccountHandler<P>) {
  return async (req: Request, params: P): Promise<Response> => {
    const ctx = await getContext();
    const caller = await requireCaller(ctx, req);
    await guardAccountRoute(ctx, caller);
    return handler({ req, params, ctx, caller });
  };
}
