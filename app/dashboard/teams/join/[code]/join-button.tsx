"use client";

import Link from "next/link";
import { useState } from "react";
import { joinTeamAction } from "../../actions";
import { Status } from "../../../status";
import { useAction } from "../../../use-action";

/** Accepts an invitation: joins the team with its role, then says so and links the team's page. */
export function JoinButton({ code, team, role }: { code: string; team: string; role: string }) {
  const { pending, failure, said, run } = useAction();
  const [joined, setJoined] = useState<string | null>(null);
  return (
    <>
      {joined ? (
        <p>
          <Link href={`/dashboard/teams/${joined}`}>Open the team&apos;s page</Link>
        </p>
      ) : (
        <button
          type="button"
          className="button"
          disabled={pending}
          onClick={() =>
            run(() => joinTeamAction(code), {
              said: (d) => `You joined ${d.name} as ${d.role}.`,
              onOk: (d) => setJoined(d.slug),
              refresh: false,
            })
          }
        >
          Join {team} as {role}
        </button>
      )}
      <Status text={said} failure={failure} testId="join-said" shown />
    </>
  );
}
