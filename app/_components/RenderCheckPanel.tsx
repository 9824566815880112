import type { AppContext } from "@/lib/context";
import type { AccountRow } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors";
import { latestRender, renderAvailability } from "@/lib/render/service";
import { RenderCheck } from "./RenderCheck";

// The render check's card for a drop page (server side): the latest check of the account's drop
// and whether this server can run one.
export async function RenderCheckPanel({ ctx, account, slug }: { ctx: AppContext; account: AccountRow; slug: string }) {
  const latest = await latestRender(ctx, account, slug).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  });
  const availability = renderAvailability(ctx);
  return <RenderCheck slug={slug} latest={latest} unavailable={availability.available ? null : availability.hint} />;
}
