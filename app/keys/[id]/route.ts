import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { revokeApiKey } from "@/lib/auth/keys";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ id: string }>({
  // DELETE /keys/<id> – revoke a key, instantly
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await revokeApiKey(ctx, caller, params.id))),
});
