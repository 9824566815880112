import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { readAccessBody, setAccess } from "@/lib/drops/access";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/access", {
  // PUT /drops/{slug}/access – make a drop public, or protect it with a password
  PUT: withAccount(async ({ req, params, ctx, caller }) =>
    json(await setAccess(ctx, caller.account, params.slug, await readAccessBody(req))),
  ),
});
