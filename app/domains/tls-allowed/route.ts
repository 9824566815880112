import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { tlsAllowed } from "@/lib/domains/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /domains/tls-allowed?domain= – Caddy's on-demand TLS `ask`: 200 for an active custom domain, else 404
  GET: async (req) => json(await tlsAllowed(await getContext(), new URL(req.url).searchParams.get("domain"))),
});
