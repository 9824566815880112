import type { Env } from "../env";
import { ApiError } from "../errors";

// The one check of a write made on the strength of the session cookie (DESIGN "Hardening
// decisions (round 5)", Origins). The cookie is SameSite=Lax: a page of another site, or of a
// drop host under the same registrable domain (which browsers call "same-site"), can have the
// browser send it with a form POST. Every route and server action that changes state with the
// cookie asks this before anything runs: an Origin header, when present, must be BASE_URL's
// origin, and Sec-Fetch-Site must be neither `cross-site` nor `same-site`. Requests with a Bearer
// credential carry no ambient authority and are never asked.

/** What the check reads of a request: its headers (a web Request's, or next/headers'). */
interface WithHeaders {
  get(name: string): string | null;
}

/** Throws 403 forbidden when a cookie-authenticated write comes from a page of another origin. */
export function refuseOtherOrigins(env: Pick<Env, "BASE_URL">, headers: WithHeaders): void {
  const origin = headers.get("origin");
  const site = headers.get("sec-fetch-site")?.trim().toLowerCase();
  if ((origin === null || origin === new URL(env.BASE_URL).origin) && site !== "cross-site" && site !== "same-site")
    return;
  throw new ApiError(
    "forbidden",
    "Changes made with the login cookie are accepted only from this service's own pages.",
    {
      hint: `Use the page at ${new URL(env.BASE_URL).origin}, or call the API with a Bearer credential.`,
    },
  );
}

/** Methods that change nothing (the check is for the others). */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}
