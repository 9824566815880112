import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

type RouteHandler = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => Promise<Response>;

// Login for the browser (next-auth). Options are built on first request, not at import.
// next-auth v4 declares its App Router handler as `any`; this is the shape it has.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  const nextAuth = NextAuth(authOptions()) as RouteHandler;
  return nextAuth(req, ctx);
}

export { handler as GET, handler as POST };
