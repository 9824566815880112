"use client";

import { joinTeamAction } from "../../actions";
import { Status } from "../../../status";
import { useAction } from "../../../use-action";

/** Accepts an invitation: joins the team with its role, then says so. */
export function JoinButton({ code, team, role }: { code: string; team: string; role: string }) {
  const { pending, failure, said, run } = useAction();
  return (
    <>
      {said ? null : (
        <button
          type="button"
          className="button"
          disabled={pending}
          onClick={() =>
            run(() => joinTeamAction(code), { said: (d) => `You joined ${d.name} as ${d.role}.`, refresh: false })
          }
        >
          Join {team} as {role}
        </button>
      )}
      <Status text={said} failure={failure} testId="join-said" shown />
    </>
  );
}
