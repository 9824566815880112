import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { deployFromGrant } from "@/lib/deploy/request";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ token: string }>({
  // POST /deploy/once/{token} – the bodies of POST /deploy, through a one-time grant (MCP deploy_directory)
  POST: async (req, { token }) => json(await deployFromGrant(await getContext(), req, token)),
});
