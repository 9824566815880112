"use client";

import { useState } from "react";
import { mintKeyAction, revokeKeyAction } from "./actions";
import { day } from "./format";
import { SecretNotice } from "./secret-notice";
import { Status } from "./status";
import { Table } from "./table";
import { useAction } from "./use-action";

interface KeyView {
  keyId: string;
  prefix: string;
  note: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The account's API keys: mint one (its secret shown once), each one's note and last use, revoke. */
export function KeysPanel({ keys }: { keys: KeyView[] }) {
  const [note, setNote] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const { pending, failure, said, run, submit } = useAction();
  const mint = submit(() => mintKeyAction(note), {
    said: () => "API key minted: copy it now, it is shown once.",
    onOk: (k) => {
      setSecret(k.apiKey);
      setNote("");
    },
  });
  return (
    <>
      <form className="row" style={{ justifyContent: "flex-start" }} onSubmit={mint}>
        <label htmlFor="key-note">Note</label>
        <input
          id="key-note"
          type="text"
          value={note}
          maxLength={200}
          onChange={(e) => setNote(e.target.value)}
          placeholder="e.g. CI deploys"
        />
        <button type="submit" className="button" disabled={pending}>
          Mint API key
        </button>
      </form>
      <Status text={said} failure={failure} testId="keys-said" />
      {secret && <SecretNotice secret={secret} noun="key" copy="Copy key" testId="new-key" />}
      {keys.length === 0 ? (
        <p className="muted">No API keys.</p>
      ) : (
        <Table className="stack" columns={["Prefix", "Note", "Last used", "Created"]} hidden="Actions">
          {keys.map((k) => (
            <tr key={k.keyId} data-testid={`key-${k.prefix}`}>
              <td className="primary">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Note">{k.note || "—"}</td>
              <td data-label="Last used">{k.lastUsedAt ? day(k.lastUsedAt) : "never"}</td>
              <td data-label="Created">{day(k.createdAt)}</td>
              <td className="actions">
                <button
                  type="button"
                  className="button small secondary"
                  aria-label={`Revoke key ${k.prefix}`}
                  disabled={pending}
                  onClick={() =>
                    run(() => revokeKeyAction(k.keyId), {
                      said: () => `Key ${k.prefix} revoked.`,
                      // The one-time secret of a key just revoked is no use to anyone.
                      onOk: () => {
                        if (secret?.startsWith(k.prefix)) setSecret(null);
                      },
                    })
                  }
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
