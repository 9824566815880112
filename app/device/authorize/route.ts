import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { authorizeDevice } from "@/lib/device/flow";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /device/authorize – an agent without a key starts a device authorisation (RFC 8628)
  POST: async (req) => json(await authorizeDevice(await getContext(), req)),
});
