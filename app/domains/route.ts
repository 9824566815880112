import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { createDomain, listDomains, readDomainBody } from "@/lib/domains/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/domains", {
  // GET /domains – the account's custom domains
  GET: withAccount(async ({ ctx, caller }) => json(await listDomains(ctx, caller.account))),
  // POST /domains – add a custom domain for one of the account's drops (Team plan); pending until verified
  POST: withAccount(async ({ req, ctx, caller }) =>
    json(await createDomain(ctx, caller.account, await readDomainBody(req)), 201),
  ),
});
