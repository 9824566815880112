import * as linksRoute from "@/app/drops/[slug]/review-links/route";
import * as linkRoute from "@/app/drops/[slug]/review-links/[id]/route";
import * as commentsRoute from "@/app/drops/[slug]/comments/route";
import * as commentRoute from "@/app/drops/[slug]/comments/[id]/route";
import * as repliesRoute from "@/app/drops/[slug]/comments/[id]/replies/route";
import type { Comment, CommentList, ReviewLinkCreated, ReviewLinkList } from "@/lib/schemas";
import type { ErrorEnvelope } from "@/lib/errors";
import { apiRequest } from "./context";

// The review routes in process (review links, comments, replies, status), as a client calls them.

type Mod = Record<string, unknown>;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ROUTES: [RegExp, Mod][] = [
  [/^\/drops\/(?<slug>[^/]+)\/review-links$/, linksRoute],
  [/^\/drops\/(?<slug>[^/]+)\/review-links\/(?<id>[^/]+)$/, linkRoute],
  [/^\/drops\/(?<slug>[^/]+)\/comments$/, commentsRoute],
  [/^\/drops\/(?<slug>[^/]+)\/comments\/(?<id>[^/]+)$/, commentRoute],
  [/^\/drops\/(?<slug>[^/]+)\/comments\/(?<id>[^/]+)\/replies$/, repliesRoute],
];

export interface ReviewAnswer {
  status: number;
  /** The body as JSON (null for 204): whichever answer or envelope the route gave. */
  body: ReviewBody | null;
}
type ReviewBody = Partial<Comment> &
  Partial<CommentList> &
  Partial<ReviewLinkCreated> &
  Partial<ReviewLinkList> &
  Partial<ErrorEnvelope>;

/** Calls a review route with an optional Bearer credential (sp_ key or rl_ token) and JSON body. */
export async function reviewCall(
  method: string,
  pathAndQuery: string,
  credential?: string,
  body?: unknown,
  ip = "203.0.113.50",
): Promise<ReviewAnswer> {
  const pathname = pathAndQuery.split("?")[0]!;
  const hit = ROUTES.map(([re, mod]) => [re.exec(pathname), mod] as const).find(([m]) => m);
  if (!hit) throw new Error(`no review route for ${pathname}`);
  const [match, mod] = hit;
  const handler = mod[method] as Handler;
  const headers: Record<string, string> = {};
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(
    apiRequest(pathAndQuery, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      ip,
    }),
    { params: Promise.resolve({ ...match!.groups }) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as ReviewBody) : null };
}

/** The rl_ token of a review link's URL. */
export const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

/** Answers a request to a review route (for the CLI's in-process API), or null for another path. */
export async function answerReviewRoute(request: Request, url: URL): Promise<Response | null> {
  for (const [re, mod] of ROUTES) {
    const m = re.exec(url.pathname);
    const handler = m && (mod[request.method] as Handler | undefined);
    if (handler) return handler(request, { params: Promise.resolve({ ...m.groups }) });
  }
  return null;
}
