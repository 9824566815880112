import { TEAM_ROLES, type TeamRole } from "../schemas";

// The one permission table of teams (DESIGN "Teams"): each class of action and the weakest role
// that may take it; a role may do what the roles below it may. Every route, MCP tool and
// dashboard action asks can(role, action), never a role by name.

export const TEAM_ACTIONS = {
  /** Drops, versions, stats, renders; the team's members. */
  read: "viewer",
  /** Deploys, replaces, appends, rollbacks, access settings, render checks. */
  deploy: "member",
  /** Deleting drops. */
  delete: "admin",
  domains: "admin",
  webhooks: "admin",
  vanity: "admin",
  /** The team's keys, all of them (a person may always see and revoke their own). */
  keys: "admin",
  /** Inviting, listing and revoking invitations. */
  invites: "admin",
  /** Giving viewer, member or admin to viewers and members; removing viewers and members. */
  members: "admin",
  audit: "admin",
  billing: "owner",
  /** Granting the owner role; changing or removing an admin or an owner. */
  owners: "owner",
  deleteTeam: "owner",
} as const satisfies Record<string, TeamRole>;
export type TeamAction = keyof typeof TEAM_ACTIONS;

const rank = (role: TeamRole) => TEAM_ROLES.indexOf(role);

/** Whether a member of this role may take this class of action. */
export function can(role: TeamRole, action: TeamAction): boolean {
  return rank(role) >= rank(TEAM_ACTIONS[action]);
}

/**
 * The action class of giving a role (a role change's new role, an invitation's): the owner role
 * is the owners' to give; viewer, member and admin, the admins'.
 */
export function grantAction(role: TeamRole): TeamAction {
  return role === "owner" ? "owners" : "members";
}

/**
 * The action class of changing or removing a member who holds `role`: an admin's or an owner's
 * seat is the owners' business; a viewer's or a member's, the admins'.
 */
export function seatAction(role: TeamRole): TeamAction {
  return role === "owner" || role === "admin" ? "owners" : "members";
}
