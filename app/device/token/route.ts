import { getContext } from "@/lib/context";
import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { pollDevice } from "@/lib/device/flow";
import { deviceTokenBodySchema } from "@/lib/schemas";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/device/token", {
  // POST /device/token {device_code} – the agent's poll: pending, slow_down, expired, denied, or the key
  POST: async (req) => {
    const ctx = await getContext();
    const { device_code } = await readJson(req, deviceTokenBodySchema);
    return json(await pollDevice(ctx, device_code));
  },
});
