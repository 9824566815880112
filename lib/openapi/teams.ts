import { z } from "zod";
import { limits, TEAM_INVITE_SECONDS } from "../plans";
import * as S from "../schemas";
import type { ErrorCode } from "../errors";
import { anyCredential, jsonRequest, jsonResponse, type Operation, type Resource } from "./operation";

// Teams: accounts people share (Team plan). POST/GET /teams, POST /teams/join, DELETE
// /teams/{team}, members, invitations and the team's audit log.

const teamPath = z.object({ team: z.string().describe("The team's slug.") });
const memberPath = teamPath.extend({ account: z.string().describe("The member's account id.") });
const invitePath = teamPath.extend({ id: z.string().describe("The invitation's id.") });

/** Every /teams/{team} route: not a member → 404, a role that may not → 403. */
const gated: ErrorCode[] = ["auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"];
const withBody: ErrorCode[] = ["invalid_request", "payload_too_large"];

/**
 * An operation under /teams/{team}: any credential, the team in the path (or `path`), a JSON
 * body when `body` is given, and the gated errors (with a body's first) before its own.
 */
const teamOp = ({
  path = teamPath,
  body,
  errors = [],
  ...o
}: Omit<Operation, "security" | "errors" | "requestBody"> & {
  path?: z.ZodObject;
  body?: z.ZodType;
  errors?: ErrorCode[];
}): Operation => ({
  ...o,
  security: anyCredential,
  requestParams: { path, ...o.requestParams },
  ...(body && { requestBody: jsonRequest(body) }),
  errors: [...(body ? withBody : []), ...gated, ...errors],
});

export const teams = {
  tag: "teams",
  schemas: {
    TeamBody: S.teamBodySchema,
    TeamCreated: S.teamCreatedSchema,
    TeamList: S.teamListSchema,
    TeamMembers: S.teamMembersSchema,
    MemberRoleBody: S.memberRoleBodySchema,
    InviteBody: S.inviteBodySchema,
    InviteCreated: S.inviteCreatedSchema,
    InviteList: S.inviteListSchema,
    JoinBody: S.joinBodySchema,
    TeamAudit: S.teamAuditSchema,
  },
  paths: () => ({
    "/teams": {
      post: {
        operationId: "createTeam",
        summary: "Create a team (Team plan); you are its first owner",
        description:
          "The slug follows a vanity sub's pattern and shares one namespace with vanity subs and the reserved labels (taken → 409). " +
          `The team is on its billing owner's plan: ${limits.team.maxMembers} members on the Team plan.`,
        security: anyCredential,
        requestBody: jsonRequest(S.teamBodySchema),
        responses: { 201: jsonResponse(S.teamCreatedSchema) },
        errors: [
          ...withBody,
          "auth_required",
          "subscription_required",
          "conflict",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
      get: {
        operationId: "listTeams",
        summary: "Your teams, with your role in each",
        security: anyCredential,
        responses: { 200: jsonResponse(S.teamListSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
    },
    "/teams/join": {
      post: {
        operationId: "joinTeam",
        summary: "Join a team with an invitation's code",
        description:
          "Unknown code → 404; used, revoked or expired → 410; an invitation bound to another email → 403; " +
          "already a member → 409; the team's seats taken → 400 with details.limit max_members.",
        security: anyCredential,
        requestBody: jsonRequest(S.joinBodySchema),
        responses: { 200: jsonResponse(S.joinedSchema) },
        errors: [...withBody, ...gated, "conflict", "gone"],
      },
    },
    "/teams/{team}": {
      delete: teamOp({
        operationId: "deleteTeam",
        summary: "Delete the team (owners)",
        responses: { 200: jsonResponse(S.teamDeletedSchema) },
      }),
    },
    "/teams/{team}/members": {
      get: teamOp({
        operationId: "listTeamMembers",
        summary: "The team's members and their roles",
        responses: { 200: jsonResponse(S.teamMembersSchema) },
      }),
    },
    "/teams/{team}/members/{account}": {
      patch: teamOp({
        operationId: "setTeamMemberRole",
        summary: "Set a member's role (admins; owners for the owner role)",
        description: "The last owner cannot be demoted (409).",
        path: memberPath,
        body: S.memberRoleBodySchema,
        responses: { 200: jsonResponse(S.memberSchema) },
        errors: ["conflict"],
      }),
      delete: teamOp({
        operationId: "removeTeamMember",
        summary: "Remove a member (admins; owners for owners), or leave with your own id",
        description: "The last owner cannot leave (409).",
        path: memberPath,
        responses: { 200: jsonResponse(S.memberRemovedSchema) },
        errors: ["conflict"],
      }),
    },
    "/teams/{team}/invites": {
      post: teamOp({
        operationId: "inviteToTeam",
        summary: "Invite someone with a single-use code (admins; owners for the owner role)",
        description: `The code is shown once and may be used once within ${TEAM_INVITE_SECONDS / 86_400} days. Past the plan's seats → 400 with details.limit max_members.`,
        body: S.inviteBodySchema,
        responses: { 201: jsonResponse(S.inviteCreatedSchema) },
      }),
      get: teamOp({
        operationId: "listTeamInvites",
        summary: "The team's invitations that can still be used (admins)",
        responses: { 200: jsonResponse(S.inviteListSchema) },
      }),
    },
    "/teams/{team}/invites/{id}": {
      delete: teamOp({
        operationId: "revokeTeamInvite",
        summary: "Revoke an invitation (admins)",
        description: "Already used, revoked or expired → 410.",
        path: invitePath,
        responses: { 200: jsonResponse(S.inviteRevokedSchema) },
        errors: ["gone"],
      }),
    },
    "/teams/{team}/audit": {
      get: teamOp({
        operationId: "teamAudit",
        summary: "The team's audit log, newest first (admins and owners)",
        description: "Every change to the team's members and resources, with the acting person and credential.",
        requestParams: { query: S.teamAuditQuerySchema },
        responses: { 200: jsonResponse(S.teamAuditSchema) },
        errors: ["invalid_request"],
      }),
    },
  }),
} satisfies Resource;
