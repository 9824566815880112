import { errorResponse, notFound } from "@/lib/errors";
import { notFoundHtml } from "@/app/_components/not-found-html";

// Any path on the app host that no route claims: a browser (asking for HTML) gets a page,
// every other client the envelope.
export const dynamic = "force-dynamic";

function handler(req?: Request): Response {
  if (req && req.method === "GET" && /\btext\/html\b/.test(req.headers.get("accept") ?? "")) {
    return new Response(notFoundHtml(new URL(req.url).pathname), {
      status: 404,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  }
  return errorResponse(notFound("No such endpoint."), req);
}

export {
  handler as GET,
  handler as HEAD,
  handler as POST,
  handler as PUT,
  handler as PATCH,
  handler as DELETE,
  handler as OPTIONS,
};
