import type { IncomingMessage, ServerResponse } from "node:http";
import { getContext } from "../context";
import { purgeOauthModels } from "../db/oauth";
import { ApiError } from "../errors";
import { clientAddress } from "../ratelimit/address";
import { enforceLimit } from "../ratelimit/guard";
import { withDb } from "../db/errors";
import { AS_METADATA_PATH, MCP_SCOPE, OAUTH_ROUTES, PROVIDER_DISCOVERY_PATH } from "./paths";
import { oauthProvider } from "./provider";

/** Where next.config.ts rewrites the RFC 8414 metadata path to (a path this handler owns). */
export const AS_METADATA_REWRITE = "/api/oauth/metadata";

/**
 * Serves one request of the authorization server on Node's request and response. The RFC 8414
 * metadata (at its own path, or at the rewrite target) is the provider's discovery document.
 */
export async function handleOauth(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ctx = await getContext();
  const provider = await oauthProvider(ctx);
  const url = new URL(req.url ?? "/", "http://internal");
  if (url.pathname === AS_METADATA_PATH || url.pathname === AS_METADATA_REWRITE)
    req.url = `${PROVIDER_DISCOVERY_PATH}${url.search}`;
  // An authorization request without `scope` (some MCP clients send none) asks for the
  // resource's default scope: the provider would grant nothing and answer access_denied after
  // the person approved.
  if (req.method === "GET" && url.pathname === OAUTH_ROUTES.authorization && !url.searchParams.get("scope")) {
    url.searchParams.set("scope", MCP_SCOPE);
    req.url = `${url.pathname}?${url.searchParams}`;
  }
  if (req.method === "POST" && url.pathname === OAUTH_ROUTES.registration) {
    // Registration is open (RFC 7591, as MCP clients expect), so it is bounded per address.
    const address = clientAddress({ headers: { get: (name) => headerOf(req, name) } }, ctx.env);
    try {
      await enforceLimit(ctx, "oauthRegister", address);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "rate_limited") throw err;
      res.writeHead(429, { "content-type": "application/json", "cache-control": "no-store", ...err.headers });
      res.end(JSON.stringify({ error: "rate_limited", error_description: err.message }));
      return;
    }
    // Expired codes, tokens, grants and interactions are forgotten when a client registers (as
    // device codes are when a device asks), so the table holds what can still be used.
    await withDb(() => purgeOauthModels(ctx.db, new Date()));
  }
  await new Promise<void>((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
    provider.callback()(req, res);
  });
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
}
