import { randomBytes } from "node:crypto";
import { DEPLOY_GRANT_TOKEN_PATTERN } from "../patterns";
import type { AppContext } from "../context";
import { ApiError, authRequired } from "../errors";
import { withDb } from "../db/errors";
import { findAccount, findLiveKey } from "../db/accounts";
import { liveOauthGrant } from "../db/oauth";
import {
  findDeployGrant,
  insertDeployGrant,
  purgeDeployGrants,
  returnDeployGrant,
  takeDeployGrant,
} from "../db/grants";
import type { DeployGrantRow } from "../db/schema";
import { sha256Hex } from "../ids";
import { DEPLOY_GRANT_SECONDS, limits } from "../plans";
import { clientAddress } from "../ratelimit/address";
import { enforceLimit } from "../ratelimit/guard";
import { anonymousCaller, type Caller } from "../auth/caller";
import { tierOf } from "./quota";

// One-time deploy grants: the MCP deploy_directory tool hands an agent a URL that deploys once,
// as the caller who asked (an account or anonymous) with the options given then, so an agent
// with a shell can publish a folder (curl of a zip, or the CLI) without its bytes passing
// through the model. POST /deploy/once/{token} takes the same bodies as POST /deploy and runs
// the same flow; POST /deploy/once/{token}/preflight lets the CLI upload only missing contents
// into the grant's scope first. Only the SHA-256 of the token is stored.

export interface DeployGrant {
  url: string;
  method: "POST";
  content_types: string[];
  expires_at: string;
  max_zip_bytes: number;
  preflight_url: string;
  commands: { zip: string; curl: string; npx: string };
}

/** Single-quotes a word for a POSIX shell. */
function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The deploy_directory tool: a one-time URL, and commands that publish `dir` through it. The
 * options are checked by the caller (checkDeployOptions) before.
 */
export async function issueDeployGrant(
  ctx: AppContext,
  req: Request,
  caller: Caller,
  input: { dir?: string; ttl?: number; name?: string; render?: boolean; promote?: boolean; alias?: string | null },
): Promise<DeployGrant> {
  await enforceLimit(ctx, "deployGrant", clientAddress(req, ctx.env));
  const now = ctx.now();
  // Expired grants are kept a while for their "expired" answer; forget the old ones here.
  await withDb(() => purgeDeployGrants(ctx.db, new Date(now - DEPLOY_GRANT_SECONDS * 1000)));
  const token = `dg_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(now + DEPLOY_GRANT_SECONDS * 1000);
  await withDb(() =>
    insertDeployGrant(ctx.db, {
      id: sha256Hex(token),
      accountId: caller.account?.id ?? null,
      apiKeyId: caller.via === "api_key" ? caller.credentialKey.slice("key:".length) : null,
      oauthGrantId: caller.via === "oauth" ? caller.credentialKey.slice("oauth:".length) : null,
      ttlSeconds: input.ttl ?? null,
      name: input.name ?? null,
      renderCheck: input.render ?? false,
      promote: input.promote ?? true,
      alias: input.alias ?? null,
      createdAt: new Date(now),
      expiresAt,
    }),
  );
  const url = `${ctx.env.BASE_URL.replace(/\/$/, "")}/deploy/once/${token}`;
  const dir = shellQuote(input.dir ?? ".");
  return {
    url,
    method: "POST",
    content_types: ["application/zip", "application/json", "text/html"],
    expires_at: expiresAt.toISOString(),
    max_zip_bytes: limits[tierOf(caller)].zipBytes,
    preflight_url: `${url}/preflight`,
    commands: {
      // Dotfiles (.env, .git) and node_modules stay out, as the CLI and the drop zone leave them out.
      zip: `(cd ${dir} && zip -qr - . -x '.*' '*/.*' 'node_modules/*' '*/node_modules/*') > site.zip`,
      // Where the store takes direct uploads (Vercel Blob, S3), the zip goes by reference, so no
      // request body to a function is over 4 MB; else it is the body of one POST.
      curl: ctx.storage.direct
        ? zipByReferenceScript(url)
        : `curl --fail -H 'content-type: application/zip' --data-binary @site.zip ${url}`,
      npx: `npx dropsite deploy ${dir} --grant ${url}`,
    },
  };
}

/**
 * A POSIX shell script (curl, sed, awk, and sha256sum or shasum) that deploys site.zip through a
 * one-time URL by reference (docs/uploads.md, "Zips by reference"): preflight {"zip": {sha256,
 * size}}, PUT the archive to the target it answers, with the target's headers as they are, then
 * deploy {"zip": …} with the upload token. Header values of targets hold no quotes or braces
 * (client tokens, base64 checksums), which the extraction relies on.
 */
function zipByReferenceScript(url: string): string {
  return [
    `sha=$( (sha256sum site.zip 2>/dev/null || shasum -a 256 site.zip) | cut -d' ' -f1)`,
    `size=$(wc -c < site.zip | tr -d ' ')`,
    `ref="{\\"zip\\":{\\"sha256\\":\\"$sha\\",\\"size\\":$size}}"`,
    `pre=$(curl -sS --fail -H 'content-type: application/json' --data "$ref" ${url}/preflight)`,
    `put=$(printf '%s' "$pre" | sed -n 's/.*"url":"\\([^"]*\\)".*/\\1/p')`,
    `tok=$(printf '%s' "$pre" | sed -n 's/.*"upload_token":"\\([^"]*\\)".*/\\1/p')`,
    `{ [ -z "$put" ] || printf '%s\\n' "$pre" | sed -n 's/.*"headers":{\\([^}]*\\)}.*/\\1/p' | awk -F'","' '{for(i=1;i<=NF;i++){h=$i; gsub(/^"|"$/,"",h); sub(/":"/,": ",h); print h}}' | { set --; while IFS= read -r h; do set -- "$@" -H "$h"; done; curl -sS --fail -X PUT "$@" --data-binary @site.zip "$put" >/dev/null; }; }`,
    `curl --fail -H 'content-type: application/json' -H "x-upload-token: $tok" --data "$ref" ${url}`,
  ].join(" &&\n");
}

function unknownGrant(): ApiError {
  return new ApiError("not_found", "No such one-time deploy URL.", {
    hint: "Ask for a new one with the MCP tool deploy_directory.",
    docs: "deploy-once",
  });
}

/**
 * The caller a grant deploys as: its account (as it is now), or anonymous. A grant an API key
 * or an OAuth client asked for lives only as long as that key or the client's OAuth grant: once
 * it is revoked the grant answers as the revoked credential would (401 auth_required), on its
 * next request.
 */
async function grantCaller(ctx: AppContext, grant: DeployGrantRow): Promise<Caller> {
  if (grant.accountId === null) return anonymousCaller;
  const { accountId, apiKeyId, oauthGrantId } = grant;
  if (oauthGrantId !== null && !(await withDb(() => liveOauthGrant(ctx.db, oauthGrantId, accountId, new Date()))))
    throw authRequired();
  if (apiKeyId !== null) {
    const live = await withDb(() => findLiveKey(ctx.db, apiKeyId));
    if (!live || live.account.id !== accountId) throw authRequired();
    return { account: live.account, via: "deploy_grant", credentialKey: `grant:${grant.id}` };
  }
  const account = await withDb(() => findAccount(ctx.db, accountId));
  if (!account) throw unknownGrant();
  return { account, via: "deploy_grant", credentialKey: `grant:${grant.id}` };
}

/** The deploy options a grant fixed when it was issued (the shape of request.ts's DeployOptions). */
function grantOptions(grant: DeployGrantRow): GrantOptions {
  return {
    ttl: grant.ttlSeconds === null ? null : String(grant.ttlSeconds),
    name: grant.name,
    render: grant.renderCheck,
    promote: grant.promote,
    alias: grant.alias,
  };
}

/** What the grant's issuer chose for the deploy made through it. */
export interface GrantOptions {
  ttl: string | null;
  name: string | null;
  /** deploy_directory's render_check: the answer carries the new version's render check. */
  render: boolean;
  /** deploy_directory's promote: false stages a named drop's new version. */
  promote: boolean;
  /** deploy_directory's alias, pointed at the new version (checked again when the URL is used). */
  alias: string | null;
}

/**
 * Runs `deploy` with the grant of `token`, taking it first (one use): a second use, or one past
 * its expiry, answers 410 gone. A deploy that fails gives the grant back, so an agent can fix
 * its input and use the same URL.
 */
export async function withDeployGrant<T>(
  ctx: AppContext,
  token: string,
  deploy: (caller: Caller, opts: GrantOptions) => Promise<T>,
): Promise<T> {
  if (!DEPLOY_GRANT_TOKEN_PATTERN.test(token)) throw unknownGrant();
  const id = sha256Hex(token);
  const now = new Date(ctx.now());
  const taken = await withDb(() => takeDeployGrant(ctx.db, id, now));
  if (!taken) throw await unusable(ctx, id, now);
  try {
    return await deploy(await grantCaller(ctx, taken), grantOptions(taken));
  } catch (err) {
    await withDb(() => returnDeployGrant(ctx.db, id)).catch((e) =>
      console.error("[deploy] could not return a deploy grant", e),
    );
    throw err;
  }
}

/** Why a grant could not be taken. */
async function unusable(ctx: AppContext, id: string, now: Date): Promise<ApiError> {
  const row = await withDb(() => findDeployGrant(ctx.db, id));
  if (!row) return unknownGrant();
  const hint = "Ask for a new one-time URL with the MCP tool deploy_directory.";
  if (row.usedAt)
    return new ApiError("gone", "This one-time deploy URL was already used.", { hint, docs: "deploy-once" });
  if (row.expiresAt.getTime() <= now.getTime())
    return new ApiError("gone", "This one-time deploy URL has expired.", { hint, docs: "deploy-once" });
  return unknownGrant();
}

/** POST /deploy/once/{token}/preflight: a preflight as the grant's caller; the grant stays unused. */
export async function preflightCaller(ctx: AppContext, token: string): Promise<Caller> {
  if (!DEPLOY_GRANT_TOKEN_PATTERN.test(token)) throw unknownGrant();
  const id = sha256Hex(token);
  const now = new Date(ctx.now());
  const row = await withDb(() => findDeployGrant(ctx.db, id));
  if (!row || row.usedAt || row.expiresAt.getTime() <= now.getTime()) throw await unusable(ctx, id, now);
  return grantCaller(ctx, row);
}
