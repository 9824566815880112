import { getContext } from "@/lib/context";
import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { authorizeDevice } from "@/lib/device/flow";
import { deviceAuthorizeBodySchema } from "@/lib/schemas";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/device/authorize", {
  // POST /device/authorize [{claims}] – an agent without a key starts a device authorisation (RFC 8628),
  // optionally asking to claim its anonymous drops in the same approval
  POST: async (req) => {
    const ctx = await getContext();
    // RFC 8628 clients may post a form (client_id …), which carries nothing this server uses.
    const isJson = /^application\/json\b/i.test(req.headers.get("content-type") ?? "");
    const body = isJson ? await readJson(req, deviceAuthorizeBodySchema, { optional: true }) : {};
    return json(await authorizeDevice(ctx, req, body));
  },
});
