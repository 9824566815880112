import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

// Login for the browser (next-auth). Options are built on first request, not at import.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  return NextAuth(authOptions())(req, ctx);
}

export { handler as GET, handler as POST };
