import { scalarBundleResponse } from "@/lib/openapi/reference";

export const dynamic = "force-dynamic";

// GET /docs/api/scalar.js – Scalar's browser bundle, shipped from node_modules by the app.
export const GET = scalarBundleResponse;
