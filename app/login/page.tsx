import { redirect } from "next/navigation";
import { loginChoices, sessionCaller } from "@/lib/auth/session";
import { Header } from "../_components/Header";
import { LoginButtons } from "../_components/LoginButtons";

export const dynamic = "force-dynamic";

export default async function Login() {
  if (await sessionCaller()) redirect("/dashboard");
  const providers = loginChoices();
  return (
    <>
      <Header />
      <main>
        <h1>Log in</h1>
        <p className="muted">Log in to keep drops, mint API keys, claim anonymous drops and manage your plan.</p>
        {providers.length === 0 ? (
          <p className="error">No login provider is configured on this server. Set GOOGLE_CLIENT_ID/SECRET or OIDC_ISSUER/CLIENT_ID/CLIENT_SECRET.</p>
        ) : (
          <LoginButtons providers={providers} />
        )}
      </main>
    </>
  );
}
