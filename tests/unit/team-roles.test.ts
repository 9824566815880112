import { describe, expect, it } from "vitest";
import { TEAM_ROLES, type TeamRole } from "@/lib/schemas";
import { can, grantAction, seatAction, TEAM_ACTIONS, type TeamAction } from "@/lib/teams/roles";

// The one permission table of teams against DESIGN "Teams", written out cell by cell: viewer
// reads; member + deploys, replaces, appends, rollbacks, access, render checks; admin + deletes,
// domains, webhooks, vanity, the team's keys, invites and members; owner + billing, the owner
// role, deleting the team.

const EXPECTED: Record<TeamAction, Record<TeamRole, boolean>> = {
  read: { viewer: true, member: true, admin: true, owner: true },
  deploy: { viewer: false, member: true, admin: true, owner: true },
  delete: { viewer: false, member: false, admin: true, owner: true },
  domains: { viewer: false, member: false, admin: true, owner: true },
  webhooks: { viewer: false, member: false, admin: true, owner: true },
  vanity: { viewer: false, member: false, admin: true, owner: true },
  keys: { viewer: false, member: false, admin: true, owner: true },
  invites: { viewer: false, member: false, admin: true, owner: true },
  members: { viewer: false, member: false, admin: true, owner: true },
  audit: { viewer: false, member: false, admin: true, owner: true },
  billing: { viewer: false, member: false, admin: false, owner: true },
  owners: { viewer: false, member: false, admin: false, owner: true },
  deleteTeam: { viewer: false, member: false, admin: false, owner: true },
};

describe("the team permission table", () => {
  it("has exactly the action classes DESIGN names", () => {
    expect(Object.keys(TEAM_ACTIONS).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each((Object.keys(EXPECTED) as TeamAction[]).flatMap((a) => TEAM_ROLES.map((r) => [a, r] as const)))(
    "%s × %s",
    (action, role) => {
      expect(can(role, action)).toBe(EXPECTED[action][role]);
    },
  );

  it("giving the owner role is the owners'; giving viewer, member or admin, the admins'", () => {
    expect(TEAM_ROLES.map((r) => [r, grantAction(r)])).toEqual([
      ["viewer", "members"],
      ["member", "members"],
      ["admin", "members"],
      ["owner", "owners"],
    ]);
  });

  it("changing or removing an admin or an owner is the owners'; a viewer or a member, the admins'", () => {
    expect(TEAM_ROLES.map((r) => [r, seatAction(r)])).toEqual([
      ["viewer", "members"],
      ["member", "members"],
      ["admin", "owners"],
      ["owner", "owners"],
    ]);
  });
});
