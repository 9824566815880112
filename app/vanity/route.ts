import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { claimVanity, getVanity, readVanityBody } from "@/lib/vanity";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /vanity – the account's vanity subdomain, null when none
  GET: withAccount(async ({ caller }) => json(getVanity(caller.account))),
  // POST /vanity – claim a vanity subdomain (Team plan)
  POST: withAccount(async ({ req, ctx, caller }) => json(await claimVanity(ctx, caller.account, await readVanityBody(req)), 201)),
});
