import { redirect } from "next/navigation";
import { loginChoices, sessionPerson } from "@/lib/auth/session";
import { Header } from "../_components/Header";
import { LoginButtons } from "../_components/LoginButtons";

export const dynamic = "force-dynamic";

/**
 * Where to go after logging in: a path of this app (an OAuth consent page resumes so, and a
 * members-only drop's visitor goes back to /access/members), else the dashboard.
 */
function destination(next: string | undefined): string {
  const ours =
    /^\/dashboard(\/[A-Za-z0-9._~%/-]*)?$/.test(next ?? "") ||
    /^\/access\/members\?[A-Za-z0-9._~%&=+-]*$/.test(next ?? "");
  return next && ours && !next.includes("//") ? next : "/dashboard";
}

export default async function Login({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const next = destination((await searchParams).next);
  if (await sessionPerson()) redirect(next);
  const providers = loginChoices();
  return (
    <>
      <Header />
      <main>
        <h1>Log in</h1>
        <p className="muted">Log in to keep drops, mint API keys, claim anonymous drops and manage your plan.</p>
        {providers.length === 0 ? (
          <p className="error">
            No login provider is configured on this server. Set GOOGLE_CLIENT_ID/SECRET or
            OIDC_ISSUER/CLIENT_ID/CLIENT_SECRET.
          </p>
        ) : (
          <LoginButtons providers={providers} callbackUrl={next} />
        )}
      </main>
    </>
  );
}
