import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import GoogleProvider from "next-auth/providers/google";
import CredentialsProvider from "next-auth/providers/credentials";
import type { Provider } from "next-auth/providers/index";
import { env, isLocalDeployment, type Env } from "../env";
import { serverSecret } from "../secret";
import { describeCause } from "../errors";
import { getContext } from "../context";
import { findAccount, upsertAccount } from "../db/accounts";
import { findTeamFor } from "../db/teams";
import { newId } from "../ids";
import type { Caller } from "./caller";
import type { AccountRow } from "../db/schema";
import { actAsTeam } from "../teams/acting";
import { actingChoice, clearActingChoice } from "../teams/acting-choice";
import { refuseOtherOrigins } from "./origin";

// Browser sessions (next-auth 4): Google and any OpenID provider by issuer; on a developer's
// machine with no provider configured, a clearly labelled local-developer login. The session
// is a JWT in an httpOnly cookie scoped to the app host (no Domain attribute), so drop hosts
// never receive it. Accounts are keyed by (issuer, subject), the same as API ID tokens.

export const GOOGLE_ISSUER = "https://accounts.google.com";
export const DEV_ISSUER = "urn:dropsite:local-developer";

export function loginProviders(e: Env = env()): Provider[] {
  const providers: Provider[] = [];
  if (e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET) {
    providers.push(GoogleProvider({ clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET }));
  }
  if (e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET) {
    providers.push({
      id: "oidc",
      name: new URL(e.OIDC_ISSUER).host,
      type: "oauth",
      wellKnown: `${e.OIDC_ISSUER.replace(/\/+$/, "")}/.well-known/openid-configuration`,
      clientId: e.OIDC_CLIENT_ID,
      clientSecret: e.OIDC_CLIENT_SECRET,
      idToken: true,
      checks: ["pkce", "state"],
      authorization: { params: { scope: "openid email profile" } },
      profile: (p: { sub: string; email?: string; name?: string }) => ({
        id: p.sub,
        email: p.email ?? null,
        name: p.name ?? null,
      }),
    });
  }
  if (providers.length === 0 && isLocalDeployment(e)) {
    providers.push(
      CredentialsProvider({
        id: "dev",
        name: "Local developer (no identity provider configured)",
        credentials: { email: { label: "Email", type: "email", placeholder: "you@example.test" } },
        authorize: async (credentials) => {
          const email = credentials?.email?.trim().toLowerCase();
          if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) return null;
          return { id: email, email };
        },
      }),
    );
  }
  return providers;
}

export interface LoginChoice {
  id: string;
  name: string;
  type: string;
}

/** What the login page offers. next-auth applies a provider's own options (id, name) at runtime. */
export function loginChoices(e: Env = env()): LoginChoice[] {
  return loginProviders(e).map((p) => {
    const own = (p as { options?: { id?: string; name?: string } }).options;
    return { id: own?.id ?? p.id, name: own?.name ?? p.name, type: p.type };
  });
}

function issuerOf(provider: string, e: Env): string {
  if (provider === "google") return GOOGLE_ISSUER;
  if (provider === "oidc" && e.OIDC_ISSUER) return e.OIDC_ISSUER;
  return DEV_ISSUER;
}

/**
 * Over https the session cookie is `__Host-next-auth.session-token`: browsers accept a
 * `__Host-` cookie only from the app host itself (Secure, Path=/, no Domain), so a page on a
 * drop host cannot plant one beside it, even when both share a parent domain.
 */
export function sessionCookies(e: Env): NextAuthOptions["cookies"] {
  if (!e.BASE_URL.startsWith("https://")) return undefined;
  return {
    sessionToken: {
      name: "__Host-next-auth.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true },
    },
  };
}

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  const e = env();
  // next-auth reads its public URL from its own variable; default it to BASE_URL.
  process.env.NEXTAUTH_URL ??= e.NEXTAUTH_URL ?? e.BASE_URL;
  cached = {
    providers: loginProviders(e),
    secret: serverSecret(e),
    session: { strategy: "jwt", maxAge: 7 * 86400 },
    useSecureCookies: e.BASE_URL.startsWith("https://"),
    cookies: sessionCookies(e),
    pages: { signIn: "/login" },
    // One line per problem: an unreadable session cookie (anyone can send one) must not write
    // a stack trace per request.
    logger: {
      error: (code, metadata) =>
        console.error(
          `[auth] ${code}: ${describeCause(metadata instanceof Error ? metadata : ((metadata as { error?: unknown })?.error ?? metadata))}`,
        ),
      warn: (code) => console.warn(`[auth] ${code}`),
      debug: () => undefined,
    },
    callbacks: {
      async jwt({ token, account, profile }) {
        if (account) {
          const ctx = await getContext();
          const row = await upsertAccount(ctx.db, {
            id: `acc_${newId().replace(/-/g, "")}`,
            issuer: issuerOf(account.provider, e),
            subject: account.providerAccountId,
            email: token.email ?? null,
            // Google and OpenID providers say whether they verified the email; the local login never does.
            emailVerified: (profile as { email_verified?: unknown } | undefined)?.email_verified === true,
          });
          token.accountId = row.id;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, accountId: typeof token.accountId === "string" ? token.accountId : undefined };
      },
    },
  };
  return cached;
}

type SessionCaller = Caller & { account: AccountRow };

/**
 * What the session is used for: "read" (a page), or "write" (a route or server action that
 * changes state): a write from a page of another origin is refused (403 forbidden,
 * lib/auth/origin.ts) before the cookie is read.
 */
export type SessionUse = "read" | "write";

/** The person logged in on this browser, whatever they act as; null when logged out. */
export async function sessionPerson(use: SessionUse = "read"): Promise<SessionCaller | null> {
  if (use === "write") refuseOtherOrigins(env(), await headers());
  const session = await getServerSession<ReturnType<typeof authOptions>, { accountId?: string }>(authOptions());
  if (!session?.accountId) return null;
  const ctx = await getContext();
  const account = await findAccount(ctx.db, session.accountId);
  if (!account) return null;
  return { account, via: "session", credentialKey: `session:${account.id}` };
}

/**
 * The caller of a dashboard page or server action: the person, or the team they picked in the
 * dashboard's "Acting as" switcher while they are still a member of it (their role as it is now;
 * a choice that no longer holds is cleared and the person acts as themselves). Null when logged out.
 */
export async function sessionCaller(use: SessionUse = "read"): Promise<SessionCaller | null> {
  const person = await sessionPerson(use);
  if (!person) return null;
  const choice = await actingChoice();
  if (choice === undefined) return person;
  const ctx = await getContext();
  const found = await findTeamFor(ctx.db, choice, person.account.id);
  const acting = found?.role ? await actAsTeam(ctx, person, found.team) : null;
  if (acting) return acting;
  await clearActingChoice();
  return person;
}
