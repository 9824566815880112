import { env } from "@/lib/env";
import { json, routes } from "@/lib/http";
import { openApiDocument } from "@/lib/openapi";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /openapi.json – the OpenAPI 3.1 document, generated from the zod schemas
  GET: () => json(openApiDocument(env()), 200, { "Access-Control-Allow-Origin": "*" }),
});
