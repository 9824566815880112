import { cookies } from "next/headers";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { handle } from "@/lib/http";
import { decideConsent, INTERACTION_COOKIE } from "@/lib/oauth/consent";
import { CONSENT_PATH } from "@/lib/oauth/paths";

export const dynamic = "force-dynamic";

// POST /dashboard/connect/<uid>/decide – the consent form's answer (decision=approve|deny), from
// the browser that started the request (its interaction cookie, SameSite=Lax, is required) and
// logged in: 303 to the authorization endpoint, which sends the browser on to the client with a
// code or error=access_denied; `acting` picks the account or team the connection acts for. Anything else goes back to the page, which says why.
// A form posted from a page of another origin is refused (403 forbidden, lib/auth/origin.ts).
export async function POST(req: Request, { params }: { params: Promise<{ uid: string }> }): Promise<Response> {
  return handle(decide, req, await params);
}

async function decide(req: Request, { uid }: { uid: string }): Promise<Response> {
  const ctx = await getContext();
  const back = new URL(`${CONSENT_PATH}/${encodeURIComponent(uid)}`, ctx.env.BASE_URL);
  const caller = await sessionPerson("write");
  const form = await req.formData().catch(() => null);
  const decision = form?.get("decision");
  // The account the connection acts for: "" the person, else a team's slug (checked in decideConsent).
  const acting = form?.get("acting");
  if (!caller || (decision !== "approve" && decision !== "deny")) return Response.redirect(back, 303);
  const to = await decideConsent(
    ctx,
    uid,
    (await cookies()).get(INTERACTION_COOKIE)?.value,
    caller.account.id,
    decision === "approve",
    typeof acting === "string" ? acting : "",
  );
  return Response.redirect(to ? new URL(to, ctx.env.BASE_URL) : back, 303);
}
