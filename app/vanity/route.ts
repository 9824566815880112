import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { claimVanity, getVanity, readVanityBody } from "@/lib/vanity";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/vanity", {
  // GET /vanity – the account's vanity subdomain, null when none
  GET: withAccount(async ({ caller }) => json(getVanity(caller.account))),
  // POST /vanity – claim a vanity subdomain (Team plan)
  POST: withAccount(async ({ req, ctx, caller }) =>
    json(await claimVanity(ctx, caller.account, await readVanityBody(req)), 201),
  ),
});
