"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";

export interface ProviderInfo {
  id: string;
  name: string;
  type: string;
}

export function LoginButtons({
  providers,
  callbackUrl = "/dashboard",
}: {
  providers: ProviderInfo[];
  callbackUrl?: string;
}) {
  const [email, setEmail] = useState("");
  return (
    <div className="login-options">
      {providers
        .filter((p) => p.type !== "credentials")
        .map((p) => (
          <p key={p.id}>
            <button type="button" className="button" onClick={() => void signIn(p.id, { callbackUrl })}>
              Continue with {p.id === "google" ? "Google" : p.name}
            </button>
          </p>
        ))}
      {providers
        .filter((p) => p.type === "credentials")
        .map((p) => (
          <form
            key={p.id}
            className="card"
            onSubmit={(e) => {
              e.preventDefault();
              void signIn(p.id, { email, callbackUrl });
            }}
          >
            <h2>Local developer login</h2>
            <p className="muted">
              No identity provider is configured, and this server runs on localhost, so any email signs you in. Never
              offered in production.
            </p>
            <p>
              <label htmlFor="dev-email">Email</label>
              <br />
              <input
                id="dev-email"
                type="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                placeholder="you@example.test"
              />
            </p>
            <button type="submit" className="button">
              Sign in as this developer
            </button>
          </form>
        ))}
    </div>
  );
}
