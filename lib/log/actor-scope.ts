import { AsyncLocalStorage } from "node:async_hooks";

// Who acts for a team, for the one place a change is recorded (lib/db/events.ts recordEvent): a request
// runs in a scope (lib/http.ts handle, the dashboard's session actions), the caller's
// resolution notes the person when the request acts as a team (lib/auth/caller.ts), and the
// change's event then names the person (`data.actor`) and the team's audit log gets the entry,
// in the change's own transaction. Next bundles entries separately (lib/context.ts), so the
// storage lives on globalThis.

/** The person acting for a team, with the credential used (the team audit's fields). */
export interface TeamActor {
  teamId: string;
  /** The team's account: only changes to its resources are the team's. */
  accountId: string;
  id: string;
  email: string | null;
  credential: { kind: "key" | "session" | "oauth"; id: string };
}

const KEY = Symbol.for("dropsite.teamActorScope");
const slot = globalThis as unknown as Record<symbol, AsyncLocalStorage<{ actor?: TeamActor }> | undefined>;
const storage = (slot[KEY] ??= new AsyncLocalStorage<{ actor?: TeamActor }>());

/** Runs one request (or action) in a scope of its own. */
export function inActorScope<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run({}, fn);
}

/** The request acts as a team: its changes name this person. */
export function noteTeamActor(actor: TeamActor): void {
  const scope = storage.getStore();
  if (scope) scope.actor = actor;
}

/** The person acting for the team whose account this is, in this request; undefined otherwise. */
export function teamActorFor(accountId: string): TeamActor | undefined {
  const actor = storage.getStore()?.actor;
  return actor?.accountId === accountId ? actor : undefined;
}
