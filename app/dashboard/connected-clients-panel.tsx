"use client";

import { revokeKeyAction } from "./actions";
import { day } from "./format";
import { Status } from "./status";
import { useAction } from "./use-action";

interface ConnectedClientView {
  keyId: string;
  client_name: string;
  createdAt: string;
}

/** Agents connected through OAuth (MCP connectors), beside the API keys; revoking ends their access at once. */
export function ConnectedClientsPanel({ clients }: { clients: ConnectedClientView[] }) {
  const { pending, failure, said, run } = useAction();
  return (
    <>
      <h3 id="connected-title">Connected agents</h3>
      <Status text={said} failure={failure} testId="clients-said" />
      {clients.length === 0 ? (
        <p className="muted">
          No agents connected through OAuth. An agent platform connects by adding this server&apos;s /mcp URL; you
          approve it here.
        </p>
      ) : (
        <ul className="plain" aria-labelledby="connected-title">
          {clients.map((c) => (
            <li
              key={c.keyId}
              className="row"
              style={{ justifyContent: "flex-start" }}
              data-testid={`client-${c.keyId}`}
            >
              <span>
                <strong>{c.client_name}</strong> <span className="muted">since {day(c.createdAt)}</span>
              </span>
              <button
                type="button"
                className="button small secondary"
                aria-label={`Revoke ${c.client_name}`}
                disabled={pending}
                onClick={() => run(() => revokeKeyAction(c.keyId), { said: () => `${c.client_name} disconnected.` })}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
