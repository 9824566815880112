import { cookies } from "next/headers";
import { env } from "../env";
import { VANITY_PATTERN } from "../patterns";

// The dashboard's "Acting as" choice (DESIGN "Teams"): the slug of the team a browser session
// acts for, in a cookie of the app host only. It names a team and grants nothing: the session
// acts as the team only while the person is a member (lib/auth/session.ts sessionCaller). No
// query parameter or header can name the team.

function cookieName(): string {
  // Over https a `__Host-` cookie: only the app host itself can set it (Secure, Path=/, no Domain).
  return secure() ? "__Host-dropsite-acting-as" : "dropsite-acting-as";
}

function secure(): boolean {
  return env().BASE_URL.startsWith("https://");
}

/** The slug the session picked, or undefined when it acts as the person. */
export async function actingChoice(): Promise<string | undefined> {
  const value = (await cookies()).get(cookieName())?.value;
  return value !== undefined && VANITY_PATTERN.test(value) ? value : undefined;
}

/** Acts as this team from the next request on (null: as the person). Server actions and route handlers only. */
export async function setActingChoice(slug: string | null): Promise<void> {
  const jar = await cookies();
  if (slug === null) {
    jar.delete(cookieName());
    return;
  }
  jar.set(cookieName(), slug, { httpOnly: true, sameSite: "lax", secure: secure(), path: "/" });
}

/** Forgets a choice that no longer holds; while a page renders cookies cannot change, and the next action clears it. */
export async function clearActingChoice(): Promise<void> {
  try {
    (await cookies()).delete(cookieName());
  } catch {
    // A server component's render: the choice is ignored (the membership is re-checked each time).
  }
}
