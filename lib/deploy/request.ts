import type { AppContext } from "../context";
import { refuseBlocked } from "../safety/blocks";
import { ApiError, authRequired } from "../errors";
import { clientAddress } from "../ratelimit/address";
import { optionalCaller, requireCaller, type Caller } from "../auth/caller";
import { checkLimit, enforceLimit } from "../ratelimit/guard";
import { isPaid, limits } from "../plans";
import { NAME_PATTERN, type AppendResponse, type DeployResponse } from "../schemas";
import { isDropName } from "../patterns";
import { bodyForm, fileCapError, readDeployFiles } from "./body";
import { zipSlots } from "./slots";
import type { InputFile } from "./paths";
import { appendToDrop, createDrop } from "./store";
import { tierOf } from "./quota";
import { resolveTtl } from "./ttl";
import { UPLOAD_TOKEN_HEADER, uploadScope } from "./uploads";
import { withDeployGrant } from "./grants";
import { aliasDeployed, aliasForDeploy } from "./alias";
import { withZipReference } from "./zipref";
import { guardAccountRoute } from "../auth/guard";
import { countDeploy } from "../metrics/deploys";
import type { DeployVia } from "../metrics/registry";

/** The per-address deploy budget of one request, spent just before its files are stored. */
export interface DeployQuota {
  spend: () => Promise<void>;
  /** The client address the budget is for (address blocks apply to anonymous deploys). */
  address: string;
  /** Says what a REST deploy turned out to be once its body is read (deploys_total's `via`). */
  form?: (via: "zip" | "reference") => void;
}

/** Failures of the caller's input (not 429, not 5xx): they count against the deployInvalid budget. */
function refusedInput(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.code !== "rate_limited";
}

/**
 * The abuse guard shared by every way of deploying (REST, dashboard, MCP). Before any work it
 * refuses an address whose deploy budget or refused-request budget is spent; the deploy budget
 * is counted only when the deploy reaches storage (quota.spend, passed to deployFiles), and a
 * request refused for its input counts against the higher deployInvalid budget instead.
 */
export function guardedDeploy<T>(
  ctx: AppContext,
  req: Request,
  via: DeployVia,
  task: (quota: DeployQuota) => Promise<T>,
): Promise<T> {
  let kind = via;
  const form = (f: "zip" | "reference") => {
    if (kind === "rest") kind = f;
  };
  return countDeploy(
    () => kind,
    async () => {
      const address = clientAddress(req, ctx.env);
      await checkLimit(ctx, "deploy", address);
      await checkLimit(ctx, "deployInvalid", address);
      try {
        return await task({ spend: () => enforceLimit(ctx, "deploy", address), address, form });
      } catch (err) {
        if (refusedInput(err)) await enforceLimit(ctx, "deployInvalid", address).catch(() => undefined);
        throw err;
      }
    },
  );
}

export function subscriptionRequired(feature: string): ApiError {
  return new ApiError("subscription_required", `${feature} are for subscribers (pro or team).`, {
    hint: "Upgrade to a paid plan to use this; see upgrade_url.",
    upgrade: true,
    docs: "plans",
  });
}

export interface DeployOptions {
  ttl: string | null;
  name: string | null;
  /** The X-Upload-Token of a preflight (anonymous deploys by reference). */
  uploadToken?: string | null;
  /** The If-Match header as sent (named deploys): `"<version>"`. */
  ifMatch?: string | null;
  /** ?promote= as sent: "true" (the default) or "false" (stage the new version). */
  promote?: string | boolean | null;
}

/**
 * ?promote= (or MCP's boolean): true or false only, anything else 400 invalid_request. false
 * stages a redeploy's new version beside the live one; a first deploy is always live.
 */
export function parsePromote(value: string | boolean | null | undefined): boolean {
  if (value === null || value === undefined || value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw new ApiError("invalid_request", "promote must be true or false.", {
    hint: "promote=false creates the new version without making it live; POST /drops/{slug}/rollback makes it live.",
    docs: "versions",
  });
}

/** The largest version If-Match may name (PostgreSQL int4). */
const MAX_VERSION = 2_147_483_647;

/**
 * Parses `If-Match: "<version>"` (a quoted decimal version number) into the version; null when
 * the header is absent. Anything else is 400 invalid_request.
 */
export function parseIfMatch(header: string | null | undefined): number | null {
  if (header === null || header === undefined) return null;
  const m = /^"([1-9][0-9]{0,9})"$/.exec(header.trim());
  const version = m ? Number(m[1]) : NaN;
  if (!(version >= 1 && version <= MAX_VERSION)) {
    throw new ApiError("invalid_request", 'If-Match must be a version in double quotes, e.g. If-Match: "3".', {
      hint: "GET /drops/{slug}/versions gives the live version.",
      docs: "versions",
    });
  }
  return version;
}

/** Checks query options against the caller's plan before any body is read. */
export function checkDeployOptions(
  caller: Caller,
  opts: DeployOptions,
): { ttl: number | null; name?: string; ifMatch: number | null; promote: boolean } {
  const tier = tierOf(caller);
  const paid = isPaid(tier);
  const ttl = resolveTtl(opts.ttl, limits[tier], paid);
  const ifMatch = parseIfMatch(opts.ifMatch);
  const promote = parsePromote(opts.promote);
  if (opts.name === null) {
    if (ifMatch !== null)
      throw new ApiError(
        "invalid_request",
        "If-Match applies to named deploys (?name=) and appends: a new drop has no version to match.",
        { docs: "versions" },
      );
    return { ttl, ifMatch, promote };
  }
  if (!caller.account) throw authRequired();
  if (!isDropName(opts.name)) {
    throw new ApiError(
      "invalid_name",
      `name must match ${NAME_PATTERN.source} (lowercase letters, digits, hyphens; up to 41) and not contain "---".`,
      { docs: "named-drops" },
    );
  }
  if (!paid) throw subscriptionRequired("Named drops");
  return { ttl, name: opts.name, ifMatch, promote };
}

/** Deploys already-parsed files for a caller (REST and MCP share this). */
export async function deployFiles(
  ctx: AppContext,
  caller: Caller,
  opts: DeployOptions,
  files: InputFile[],
  quota?: DeployQuota,
): Promise<DeployResponse> {
  const checked = checkDeployOptions(caller, opts);
  if (!caller.account && quota) await refuseBlocked(ctx, quota.address);
  const tierLimits = limits[tierOf(caller)];
  if (files.length > tierLimits.filesPerRequest)
    throw fileCapError(files.length, tierLimits.filesPerRequest, isPaid(tierOf(caller)));
  const scope = files.some((f) => f.ref) ? await uploadScope(ctx, caller, opts.uploadToken ?? null) : undefined;
  return createDrop(ctx, caller, { files, ...checked, scope, beforeStore: quota?.spend, address: quota?.address });
}

/** A deploy request's body as `caller` with `opts`: options checked before the body is read. */
export function deployBody(
  ctx: AppContext,
  req: Request,
  caller: Caller,
  opts: DeployOptions,
  quota: DeployQuota,
): Promise<DeployResponse> {
  checkDeployOptions(caller, opts);
  const tier = tierOf(caller);
  return withBodySlot(req, async () => {
    const body = await readDeployFiles(req, limits[tier], isPaid(tier));
    if (!Array.isArray(body)) {
      quota.form?.("reference");
      return withZipReference(ctx, caller, opts.uploadToken, body.zip, limits[tier], isPaid(tier), (files) =>
        deployFiles(ctx, caller, opts, files, quota),
      );
    }
    if (body.some((f) => f.ref)) quota.form?.("reference");
    else if (bodyForm(req.headers.get("content-type")) === "zip") quota.form?.("zip");
    return deployFiles(ctx, caller, opts, body, quota);
  });
}

// POST /deploy, from request to DeployResponse. Cheap checks (rate, credential, query) come
// before the body is read.
export async function deployFromRequest(ctx: AppContext, req: Request): Promise<DeployResponse> {
  return guardedDeploy(ctx, req, "rest", async (quota) => {
    const query = new URL(req.url).searchParams;
    const caller = await optionalCaller(ctx, req);
    return deployBody(
      ctx,
      req,
      caller,
      {
        ttl: query.get("ttl"),
        name: query.get("name"),
        uploadToken: req.headers.get(UPLOAD_TOKEN_HEADER),
        ifMatch: req.headers.get("if-match"),
        promote: query.get("promote"),
      },
      quota,
    );
  });
}

// POST /deploy/once/{token}: the same bodies as POST /deploy, as the caller and with the options
// of a one-time grant (MCP deploy_directory), which this deploy uses up.
export async function deployFromGrant(
  ctx: AppContext,
  req: Request,
  token: string,
): Promise<{ answer: DeployResponse; render: boolean; caller: Caller }> {
  return guardedDeploy(ctx, req, "mcp", (quota) =>
    withDeployGrant(ctx, token, async (caller, opts) => {
      const target = opts.name === null ? null : { name: opts.name };
      const alias = await aliasForDeploy(ctx, opts.alias, caller.account, target);
      const deployed = await deployBody(
        ctx,
        req,
        caller,
        { ...opts, uploadToken: req.headers.get(UPLOAD_TOKEN_HEADER) },
        quota,
      );
      const answer = alias && caller.account ? await aliasDeployed(ctx, caller.account, deployed, alias) : deployed;
      return { answer, render: opts.render, caller };
    }),
  );
}

/** Runs the body-reading part of a deploy; zip bodies take one of the process's zip slots. */
export function withBodySlot<T>(req: Request, task: () => Promise<T>): Promise<T> {
  return bodyForm(req.headers.get("content-type")) === "zip" ? zipSlots.run(task) : task();
}

// POST /deploy/{slug}: subscribers append files to a drop they own.
export async function appendFromRequest(ctx: AppContext, req: Request, slug: string): Promise<AppendResponse> {
  const caller = await requireCaller(ctx, req);
  await guardAccountRoute(ctx, caller);
  const tier = tierOf(caller);
  if (!isPaid(tier)) throw subscriptionRequired("Appends");
  const ifMatch = parseIfMatch(req.headers.get("if-match"));
  const promote = parsePromote(new URL(req.url).searchParams.get("promote"));
  return withBodySlot(req, async () => {
    const body = await readDeployFiles(req, limits[tier], true);
    if (!Array.isArray(body))
      return withZipReference(ctx, caller, null, body.zip, limits[tier], true, (files) =>
        appendToDrop(ctx, caller, slug, files, ifMatch, promote),
      );
    return appendToDrop(ctx, caller, slug, body, ifMatch, promote);
  });
}
