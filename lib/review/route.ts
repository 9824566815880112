import { getContext, type AppContext } from "../context";
import { reviewerOf, type Reviewer } from "./reviewer";

export type ReviewHandler<P> = (args: {
  req: Request;
  params: P;
  ctx: AppContext;
  reviewer: Reviewer;
}) => Promise<Response>;

/**
 * Wraps a comment route of /drops/{slug}: an account credential (the account routes' guard and
 * the drop's ownership or team gate), or a usable review link of that same drop.
 */
export function withReviewer<P extends { slug: string }>(handler: ReviewHandler<P>) {
  return async (req: Request, params: P): Promise<Response> => {
    const ctx = await getContext();
    const reviewer = await reviewerOf(ctx, req, params.slug);
    return handler({ req, params, ctx, reviewer });
  };
}
