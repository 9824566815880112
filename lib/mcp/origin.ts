import type { Env } from "../env";

// The Origin policy of /mcp. The 2026-07-28 transport says a server answers 403 to a request
// whose Origin it does not accept (DNS rebinding, drive-by pages). Requests without Origin
// (agents, CLIs, server-side clients) are not browsers and pass. Allowed browser origins —
// BASE_URL's own and MCP_ALLOWED_ORIGINS — get CORS answers, so a browser-based agent can call
// /mcp with a Bearer key (credentials travel in Authorization, never in cookies).

const ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id",
].join(", ");
const EXPOSE_HEADERS = ["mcp-session-id", "mcp-protocol-version"].join(", ");

export function allowedOrigins(env: Env): Set<string> {
  return new Set([new URL(env.BASE_URL).origin, ...env.MCP_ALLOWED_ORIGINS]);
}

/** The 403 for a foreign Origin: a JSON-RPC error, as MCP clients read one. */
function forbidden(origin: string): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: `Forbidden: Origin ${origin} may not call this MCP endpoint. Its operator can allow it with MCP_ALLOWED_ORIGINS.`,
      },
    },
    { status: 403, headers: { "Cache-Control": "no-store", Vary: "Origin" } },
  );
}

function corsHeaders(origin: string): Record<string, string> {
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSE_HEADERS, Vary: "Origin" };
}

/**
 * Runs `next` for a request the policy admits, adding CORS headers for a browser origin;
 * answers 403 for a foreign Origin.
 */
export async function withOriginPolicy(env: Env, req: Request, next: () => Promise<Response>): Promise<Response> {
  const origin = req.headers.get("origin");
  if (origin === null) return next();
  if (!allowedOrigins(env).has(origin)) return forbidden(origin);
  const res = await next();
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(corsHeaders(origin))) headers.set(k, v);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** OPTIONS /mcp: the CORS preflight, answered for allowed origins only. */
export function preflight(env: Env, req: Request): Response {
  const origin = req.headers.get("origin");
  if (origin === null) return new Response(null, { status: 204, headers: { Allow: "POST, OPTIONS" } });
  if (!allowedOrigins(env).has(origin)) return forbidden(origin);
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": "600",
    },
  });
}
