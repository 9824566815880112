import { waitUntil } from "@vercel/functions";
import type { AppContext } from "../context";
import { addViewerViews } from "../db/sharing";

// An emails-only drop's viewer views (GET /drops/{slug}/viewers): each view the counts count
// (lib/stats/count.ts) that the gate let in by a viewer cookie adds one to that viewer, after
// the answer; a failed write is logged and loses that view only.

export function countViewerView(ctx: AppContext, dropId: string, email: string): void {
  const written = addViewerViews(ctx.db, [{ dropId, email, views: 1 }], new Date(ctx.now())).catch((err: unknown) =>
    console.error("[stats] a viewer's view was not written:", err instanceof Error ? err.message : String(err)),
  );
  if (ctx.env.VERCEL) waitUntil(written);
}
