import { referencePage } from "@/lib/openapi/reference";

export const dynamic = "force-dynamic";

// GET /docs/api – the interactive API reference (Scalar), rendered in the browser from
// /openapi.json, beside the written guide at /docs; its script comes from the app itself.
export const GET = referencePage;
