import type { NextConfig } from "next";
import { env } from "./lib/env";
import { SCALAR_BUNDLE } from "./lib/openapi/reference";
import { APP_BUNDLE } from "./lib/mcp/preview";
import { LARGEST_BODY_CAP } from "./lib/http-routes";

// Reading the configuration here makes a malformed variable fail the build and the start.
env();

const MB = 1024 * 1024;

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Drop paths are served as sent: no trailing-slash redirects, no URL normalisation.
  skipTrailingSlashRedirect: true,
  skipProxyUrlNormalize: true,
  // drizzle-orm and @vercel/functions load from node_modules, so Next's server and the data-plane
  // bundle (server.mjs) share one copy of each.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pg",
    "@neondatabase/serverless",
    "ws",
    "oidc-provider",
    "drizzle-orm",
    "@vercel/functions",
    // One registry of metric families for the data plane and Next in one process (lib/metrics).
    "prom-client",
  ],
  // The reference page and its script route read Scalar's browser bundle from node_modules; /mcp
  // inlines the MCP Apps SDK's browser build into the deploy preview (lib/mcp/preview.ts).
  // The OAuth authorization server's RFC 8414 metadata is answered by its Node handler
  // (pages/api/oauth, lib/oauth/handler.ts).
  rewrites: async () => [{ source: "/.well-known/oauth-authorization-server", destination: "/api/oauth/metadata" }],
  outputFileTracingIncludes: {
    "/docs/api": [SCALAR_BUNDLE],
    "/docs/api/scalar.js": [SCALAR_BUNDLE],
    "/mcp": [APP_BUNDLE],
  },
  // /docs/<name> reads docs/*.md at request time; the screenshots beside them are the README's, not the site's.
  outputFileTracingExcludes: { "/docs/**": ["docs/screenshots/**"] },
  experimental: {
    // The proxy buffers request bodies up to this size; past it Next truncates them. Kept above
    // the largest body any route accepts on any plan (the route table's, lib/http-routes.ts) so
    // our own cap decides and answers 413. Self-hosted the proxy does not run for requests with a
    // body (see proxy.ts's matcher), and server.mjs refuses bodies past each route's cap first.
    proxyClientMaxBodySize: LARGEST_BODY_CAP + MB,
  },
};

export default nextConfig;
