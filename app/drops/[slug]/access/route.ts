import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { readAccessBody, setAccess } from "@/lib/drops/access";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // PUT /drops/{slug}/access – make a drop public, or protect it with a password
  PUT: withAccount(async ({ req, params, ctx, caller }) => json(await setAccess(ctx, caller.account, params.slug, await readAccessBody(req)))),
});
