import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { listKeys, mintKey } from "@/lib/auth/keys";
import { mintKeyBodySchema } from "@/lib/schemas";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/keys", {
  // POST /keys – mint an API key, or with `team` a team key (ID token only)
  POST: withAccount(async ({ req, ctx, caller }) => {
    const { note, team } = await readJson(req, mintKeyBodySchema, { optional: true });
    return json(await mintKey(ctx, caller, note, team), 201);
  }),
  // GET /keys – the caller's live keys
  GET: withAccount(async ({ ctx, caller }) => json(await listKeys(ctx, caller))),
});
