import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError, notFound } from "../errors";
import { bearerCredential } from "./caller";

// The cron routes (GET /cron/cleanup, GET /cron/webhooks): Vercel Cron sends CRON_SECRET as a
// Bearer credential; without CRON_SECRET the routes do not exist. The credential comes from the
// one Authorization parser (two headers, or two credentials, are none).

function secretMatches(credential: string | null | undefined, secret: string): boolean {
  const given = Buffer.from(credential ?? "");
  const want = Buffer.from(secret);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Throws unless the request carries the cron secret: 404 without one configured, else 401. */
export function requireCronSecret(ctx: AppContext, req: Request, job: string): void {
  const secret = ctx.env.CRON_SECRET;
  if (!secret) throw notFound("No such endpoint.");
  if (!secretMatches(bearerCredential(req), secret)) {
    throw new ApiError("auth_required", `The ${job} job needs Authorization: Bearer <CRON_SECRET>.`);
  }
}
