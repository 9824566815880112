"use client";

import { useState } from "react";
import { Button, Field, InlineForm, Select } from "../../../_components/ui";
import { inviteAction, revokeInviteAction } from "../actions";
import { SecretNotice } from "../../secret-notice";
import { Status } from "../../status";
import { Table } from "../../table";
import { useAction } from "../../use-action";

export interface InviteView {
  id: string;
  role: string;
  email: string | null;
  expires_at: string;
}

/** Invitations: make one (its link shown once), the usable ones, revoke. */
export function InvitesPanel({
  slug,
  invites,
  roles,
}: {
  slug: string;
  invites: InviteView[];
  /** The roles the viewer may invite with. */
  roles: readonly string[];
}) {
  const [role, setRole] = useState("member");
  const [email, setEmail] = useState("");
  const [link, setLink] = useState<string | null>(null);
  const { pending, failure, said, run, submit } = useAction();
  const invite = submit(() => inviteAction(slug, role, email), {
    said: (d) => `Invitation for a ${d.role} made: copy its link now, it is shown once.`,
    onOk: (d) => {
      setLink(d.url);
      setEmail("");
    },
  });
  return (
    <>
      <InlineForm onSubmit={invite} submit="Create invitation" pending={pending}>
        <Select
          id="invite-role"
          label="Role"
          options={roles.map((r) => ({ value: r, label: r }))}
          value={role}
          onChange={(e) => setRole(e.target.value)}
        />
        <Field
          id="invite-email"
          kind="text"
          label="Only for this email (optional)"
          value={email}
          maxLength={255}
          onChange={(e) => setEmail(e.target.value)}
        />
      </InlineForm>
      <Status text={said} failure={failure} testId="invites-said" />
      {link && <SecretNotice secret={link} noun="invitation link" copy="Copy link" testId="new-invite" />}
      {invites.length === 0 ? (
        <p className="muted">No usable invitations.</p>
      ) : (
        <Table className="stack" columns={["Role", "For", "Expires"]} hidden="Actions" testId="team-invites">
          {invites.map((i) => (
            <tr key={i.id} data-testid={`invite-${i.id}`}>
              <td className="primary">{i.role}</td>
              <td data-label="For">{i.email ?? "anyone with the link"}</td>
              <td data-label="Expires">{i.expires_at.slice(0, 16).replace("T", " ")} UTC</td>
              <td className="actions">
                <Button
                  small
                  variant="secondary"
                  disabled={pending}
                  aria-label={`Revoke the ${i.role} invitation ${i.id}`}
                  onClick={() => run(() => revokeInviteAction(slug, i.id), { said: () => "Invitation revoked." })}
                >
                  Revoke
                </Button>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
