import Link from "next/link";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { findPendingDevice } from "@/lib/device/flow";
import { Header } from "../_components/Header";
import { DeviceDecision } from "./decision";

export const dynamic = "force-dynamic";

// /device?code=WDJB-MJHT – where a person approves an agent's device authorisation (RFC 8628).
export default async function DevicePage({ searchParams }: { searchParams: Promise<{ code?: string }> }) {
  const code = (await searchParams).code ?? "";
  const caller = await sessionPerson();
  const pending = code ? await findPendingDevice(await getContext(), code) : null;
  return (
    <>
      <Header />
      <main>
        <h1>Connect an agent</h1>
        <p className="muted">
          An agent asked for an API key for your account. Approve only if you started this and the code matches what
          your agent shows.
        </p>
        {!caller ? (
          <section className="card">
            <p>
              <Link href="/login">Log in</Link>, then open this page again
              {code ? (
                <>
                  {" "}
                  (code <code>{code}</code>)
                </>
              ) : null}
              .
            </p>
          </section>
        ) : (
          <DeviceDecision
            initialCode={pending?.user_code ?? code}
            known={pending !== null}
            account={caller.account.email ?? caller.account.id}
            claims={pending?.claims ?? []}
          />
        )}
      </main>
    </>
  );
}
