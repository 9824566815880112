import { timingSafeEqual } from "node:crypto";
import { getContext } from "@/lib/context";
import { bearerCredential } from "@/lib/auth/caller";
import { ApiError, notFound } from "@/lib/errors";
import { json, routes } from "@/lib/http";
import { runCleanup } from "@/lib/drops/lifecycle";

export const dynamic = "force-dynamic";

// The credential comes from the one Authorization parser (two headers, or two credentials, are none).
function secretMatches(credential: string | null | undefined, secret: string): boolean {
  const given = Buffer.from(credential ?? "");
  const want = Buffer.from(secret);
  return given.length === want.length && timingSafeEqual(given, want);
}

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /cron/cleanup – purge expired drops (Vercel Cron, Bearer CRON_SECRET)
  GET: async (req) => {
    const ctx = await getContext();
    const secret = ctx.env.CRON_SECRET;
    if (!secret) throw notFound("No such endpoint.");
    if (!secretMatches(bearerCredential(req), secret)) {
      throw new ApiError("auth_required", "The cleanup job needs Authorization: Bearer <CRON_SECRET>.");
    }
    return json(await runCleanup(ctx));
  },
});
