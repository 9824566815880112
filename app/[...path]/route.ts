import { errorResponse, notFound } from "@/lib/errors";

// Any path on the app host that no route claims: the envelope, not an HTML page.
export const dynamic = "force-dynamic";

function handler(): Response {
  return errorResponse(notFound("No such endpoint."));
}

export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
