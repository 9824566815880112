import { timingSafeEqual } from "node:crypto";
import { getContext } from "@/lib/context";
import { ApiError, notFound } from "@/lib/errors";
import { json, routes } from "@/lib/http";
import { runCleanup } from "@/lib/drops/lifecycle";

export const dynamic = "force-dynamic";

function secretMatches(header: string | null, secret: string): boolean {
  const given = Buffer.from(header ?? "");
  const want = Buffer.from(`Bearer ${secret}`);
  return given.length === want.length && timingSafeEqual(given, want);
}

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /cron/cleanup – purge expired drops (Vercel Cron, Bearer CRON_SECRET)
  GET: async (req) => {
    const ctx = await getContext();
    const secret = ctx.env.CRON_SECRET;
    if (!secret) throw notFound("No such endpoint.");
    if (!secretMatches(req.headers.get("authorization"), secret)) {
      throw new ApiError("auth_required", "The cleanup job needs Authorization: Bearer <CRON_SECRET>.");
    }
    return json(await runCleanup(ctx));
  },
});
