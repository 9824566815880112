import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { verifyDomain } from "@/lib/domains/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/domains/{hostname}/verify", {
  // POST /domains/{hostname}/verify – look up the TXT record; the domain is active once it holds the value
  POST: withAccount(async ({ params, ctx, caller }) => json(await verifyDomain(ctx, caller.account, params.hostname))),
});
