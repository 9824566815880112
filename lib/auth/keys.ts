import { randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError, authRequired } from "../errors";
import { withDb } from "../db/errors";
import { INPUT_LIMITS, plainText } from "../input";
import { sha256Hex } from "../ids";
import { SHA256_HEX_PATTERN } from "../patterns";
import { limits } from "../plans";
import { insertKeyCapped, listLiveKeys, revokeKey } from "../db/accounts";
import type { Caller } from "./caller";
import { enforceLimit } from "../ratelimit/guard";
import { listConnectedClients, OAUTH_KEY_ID_PATTERN, revokeConnectedClient } from "../oauth/clients";
import type { AccountRow } from "../db/schema";
import { listTeamKeys, revokeTeamKey } from "../db/teams";
import { recordTeamAudit } from "../db/team-audit";
import type { TeamRole } from "../schemas";
import { actorOf, refused, teamFor } from "../teams/access";
import { can } from "../teams/roles";

// API keys: sp_ + 43 base64url characters (32 random bytes), shown once. Only the SHA-256 is
// stored; it is also the key id. The prefix (first 10 characters) tells keys apart.

export function newApiKey(): { apiKey: string; keyId: string; prefix: string } {
  const apiKey = `sp_${randomBytes(32).toString("base64url")}`;
  return { apiKey, keyId: sha256Hex(apiKey), prefix: apiKey.slice(0, 10) };
}

// POST /keys: only an ID token (a person who logged in) may mint keys; with `team` (a slug of
// a team the person is in, any role), a team key carrying the person's role there.
export async function mintKey(ctx: AppContext, caller: Caller, rawNote: unknown = "", team?: string) {
  if (!caller.account || (caller.via !== "id_token" && caller.via !== "session")) {
    throw new ApiError(
      "auth_required",
      "Minting a key needs an identity-provider ID token; an API key cannot mint keys.",
      {
        hint: "Log in on the dashboard, or send the ID token of your login as the Bearer credential.",
        docs: "authentication",
      },
    );
  }
  const account = caller.actor ?? caller.account;
  const note = plainText(rawNote, "note", INPUT_LIMITS.noteBytes);
  await enforceLimit(ctx, "keyMint", account.id);
  const max = limits[account.plan].maxKeys;
  const teamId =
    team === undefined ? null : (await teamFor(ctx, { ...caller, account }, team, "read", "mint team keys")).team.id;
  const key = newApiKey();
  // Counted and inserted under the account's row lock: parallel mints cannot pass the cap.
  const inserted = await withDb(() =>
    insertKeyCapped(
      ctx.db,
      { id: key.keyId, accountId: account.id, prefix: key.prefix, note, teamId, createdAt: new Date(ctx.now()) },
      max,
      teamId === null
        ? undefined
        : (tx) =>
            recordTeamAudit(tx, {
              ...actorOf(ctx, { ...caller, account }),
              teamId,
              action: "key.created",
              target: `key:${key.keyId}`,
            }),
    ),
  );
  if (!inserted) {
    throw new ApiError("invalid_request", `This account already has ${max} live keys.`, {
      hint: "Revoke a key you no longer use, then mint again.",
      docs: "keys",
      details: { limit: "max_keys", allowed: max, plan: account.plan },
    });
  }
  return { accountId: account.id, apiKey: key.apiKey, keyId: key.keyId, note, ...(team === undefined ? {} : { team }) };
}

export async function listKeys(ctx: AppContext, caller: Caller) {
  // Acting as a team: the person's own keys of that team (all the team's for admins and owners).
  const account = caller.actor ?? caller.account;
  if (!account) throw authRequired();
  const team = caller.team;
  // A team key lists the team's keys: all of them for admins and owners, one's own otherwise.
  const [rows, clients] = await withDb(() =>
    team
      ? Promise.all([
          can(team.role, "keys") ? listTeamKeys(ctx.db, team.id) : listLiveKeys(ctx.db, account.id, team.id),
          Promise.resolve([]),
        ])
      : Promise.all([listLiveKeys(ctx.db, account.id), listConnectedClients(ctx, account.id)]),
  );
  return {
    keys: [
      ...rows.map((k) => ({
        keyId: k.id,
        kind: "api_key" as const,
        prefix: k.prefix,
        note: k.note,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
      })),
      // Clients connected through OAuth (MCP connectors), revocable the same way.
      ...clients,
    ],
  };
}

export async function revokeApiKey(ctx: AppContext, caller: Caller, keyId: unknown) {
  const account = caller.actor ?? caller.account;
  if (!account) throw authRequired();
  if (caller.team) return revokeWithTeamKey(ctx, { ...caller, account }, caller.team, keyId);
  if (typeof keyId === "string" && OAUTH_KEY_ID_PATTERN.test(keyId)) {
    if (!(await withDb(() => revokeConnectedClient(ctx, account.id, keyId))))
      throw new ApiError("not_found", "No such key in this account.");
    return { revoked: keyId };
  }
  if (typeof keyId !== "string" || !SHA256_HEX_PATTERN.test(keyId))
    throw new ApiError("not_found", "No such key in this account.");
  // A person may always revoke their own keys, team keys too (the team's audit says so).
  const ok = await withDb(() =>
    revokeKey(ctx.db, account.id, keyId, new Date(ctx.now()), (tx, teamId) =>
      recordTeamAudit(tx, {
        ...actorOf(ctx, { ...caller, account }),
        teamId,
        action: "key.revoked",
        target: `key:${keyId}`,
      }),
    ),
  );
  if (!ok) throw new ApiError("not_found", "No such key in this account.");
  return { revoked: keyId };
}

/**
 * DELETE /keys/{id} with a team key: one's own team keys; admins and owners, any of the team's.
 * Below admin, any key that is not one's own is 403 whether or not it exists: the role decides
 * before the key is looked up, so the answer tells nothing of other members' keys.
 */
async function revokeWithTeamKey(
  ctx: AppContext,
  caller: Caller & { account: AccountRow },
  team: { id: string; role: TeamRole },
  keyId: unknown,
) {
  if (typeof keyId !== "string" || !SHA256_HEX_PATTERN.test(keyId))
    throw new ApiError("not_found", "No such key in this team.");
  const anyones = can(team.role, "keys");
  const ok = await withDb(() =>
    revokeTeamKey(ctx.db, team.id, keyId, anyones ? null : caller.account.id, {
      ...actorOf(ctx, caller),
      action: "key.revoked",
      target: `key:${keyId}`,
    }),
  );
  if (ok) return { revoked: keyId };
  if (!anyones) throw refused(team.role, "revoke other members' keys");
  throw new ApiError("not_found", "No such key in this team.");
}
