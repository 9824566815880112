// What the Action does for the event GitHub ran it on (pure: the event's name and payload in,
// a plan out). A pull request from a fork deploys nothing, whichever event carries it: GitHub
// gives forks no secrets on `pull_request`, and `pull_request_target` would run the base's
// workflow with secrets over a stranger's files.

export type Plan =
  | { kind: "preview"; number: number; alias: string; headSha: string; branch: string }
  | { kind: "close"; number: number; alias: string }
  | { kind: "live"; branch: string }
  | { kind: "skip"; reason: string };

interface RepoRef {
  full_name?: string;
}
interface PullRequest {
  number?: number;
  head?: { sha?: string; ref?: string; repo?: RepoRef | null };
  base?: { repo?: RepoRef | null };
}
export interface EventPayload {
  action?: string;
  number?: number;
  pull_request?: PullRequest;
  ref?: string;
  repository?: { full_name?: string; default_branch?: string };
}

const PR_EVENTS = new Set(["pull_request", "pull_request_target"]);
const DEPLOYING_ACTIONS = new Set(["opened", "synchronize", "reopened"]);

/** The alias of a pull request's preview: `pr-<number>` (an alias name is at most 16 characters). */
export const prAlias = (n: number) => `pr-${n}`;

/** Whether the pull request's head lives in another repository than its base (a fork), or is gone. */
function fromFork(pr: PullRequest, repository: string): boolean {
  const head = pr.head?.repo?.full_name;
  const base = pr.base?.repo?.full_name ?? repository;
  return !head || head.toLowerCase() !== base.toLowerCase();
}

export function planFor(eventName: string, payload: EventPayload, repository: string): Plan {
  if (PR_EVENTS.has(eventName)) {
    const pr = payload.pull_request;
    const number = pr?.number ?? payload.number;
    if (!pr || typeof number !== "number")
      return { kind: "skip", reason: `the ${eventName} event has no pull request` };
    if (fromFork(pr, repository))
      return {
        kind: "skip",
        reason: `pull request #${number} comes from a fork: GitHub gives forks no secrets, and a fork's files are not deployed with this repository's key. Nothing was deployed.`,
      };
    const action = payload.action ?? "";
    if (action === "closed") return { kind: "close", number, alias: prAlias(number) };
    if (DEPLOYING_ACTIONS.has(action))
      return {
        kind: "preview",
        number,
        alias: prAlias(number),
        headSha: pr.head?.sha ?? "",
        branch: pr.head?.ref ?? "",
      };
    return {
      kind: "skip",
      reason: `nothing to do for a pull request ${action || "event"} (only opened, synchronize, reopened and closed)`,
    };
  }
  if (eventName === "push") {
    const branch = (payload.ref ?? "").replace(/^refs\/heads\//, "");
    const main = payload.repository?.default_branch;
    if (main && payload.ref === `refs/heads/${main}`) return { kind: "live", branch };
    return {
      kind: "skip",
      reason: `a push to ${payload.ref ?? "an unknown ref"} is not to the default branch (${main ?? "unknown"}): only the default branch deploys live`,
    };
  }
  return {
    kind: "skip",
    reason: `the ${eventName || "unknown"} event is not one this Action acts on (pull_request, pull_request_target, push)`,
  };
}
