"use client";

import { useState } from "react";
import { Button, Select } from "../../../_components/ui";
import { removeMemberAction, setRoleAction } from "../actions";
import { Status } from "../../status";
import { Table } from "../../table";
import { useAction } from "../../use-action";

export interface MemberView {
  account_id: string;
  email: string | null;
  role: string;
  joined_at: string;
}

/** A team's members: each one's role, changed or removed where the viewer's role allows; one's own row leaves. */
export function MembersPanel({
  slug,
  members,
  me,
  roles,
  editable: seats,
}: {
  slug: string;
  members: MemberView[];
  me: string;
  /** The roles the viewer may give (lib/teams/roles.ts grantAction). */
  roles: readonly string[];
  /** The members whose role the viewer may change, or whom they may remove (seatAction). */
  editable: readonly string[];
}) {
  const { pending, failure, said, run } = useAction();
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const offered = roles.map((r) => ({ value: r, label: r }));
  return (
    <>
      <Table className="stack" columns={["Member", "Role", "Joined"]} hidden="Actions" testId="team-members">
        {members.map((m) => {
          const who = m.email ?? m.account_id;
          const editable = seats.includes(m.account_id);
          return (
            <tr key={m.account_id} data-testid={`member-${m.account_id}`}>
              <td className="primary">{who}</td>
              <td data-label="Role">
                {editable ? (
                  <Select
                    id={`role-${m.account_id}`}
                    label={<span className="visually-hidden">Role of {who}</span>}
                    options={offered}
                    value={chosen[m.account_id] ?? m.role}
                    onChange={(e) => setChosen({ ...chosen, [m.account_id]: e.target.value })}
                  />
                ) : (
                  m.role
                )}
              </td>
              <td data-label="Joined">{m.joined_at.slice(0, 10)}</td>
              <td className="actions">
                {editable && (
                  <>
                    <Button
                      small
                      variant="secondary"
                      disabled={pending || (chosen[m.account_id] ?? m.role) === m.role}
                      aria-label={`Save role of ${who}`}
                      onClick={() =>
                        run(() => setRoleAction(slug, m.account_id, chosen[m.account_id]), {
                          said: (d) => `${who} is now ${d.role}.`,
                        })
                      }
                    >
                      Save role
                    </Button>{" "}
                    <Button
                      small
                      variant="danger"
                      disabled={pending}
                      aria-label={`Remove ${who} from the team`}
                      onClick={() =>
                        run(() => removeMemberAction(slug, m.account_id), { said: () => `${who} removed.` })
                      }
                    >
                      Remove
                    </Button>
                  </>
                )}
                {m.account_id === me && (
                  <Button
                    small
                    variant="secondary"
                    disabled={pending}
                    onClick={() => run(() => removeMemberAction(slug, me), { said: () => "You left the team." })}
                  >
                    Leave team
                  </Button>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      <Status text={said} failure={failure} testId="members-said" shown />
    </>
  );
}
