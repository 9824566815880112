import { ApiReference } from "@scalar/nextjs-api-reference";

// GET /docs/api – the interactive API reference (Scalar), rendered in the browser from
// /openapi.json, beside the written guide at /docs.
export const GET = ApiReference({ url: "/openapi.json", pageTitle: "dropsite API reference" });
