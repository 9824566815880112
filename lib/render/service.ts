import { metrics } from "../metrics/registry";
import { randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { dropUrl } from "../env";
import { limits, RENDER_MCP_IMAGE_BYTES, type Tier } from "../plans";
import { enforceLimit } from "../ratelimit/guard";
import { withDb } from "../db/errors";
import type { AccountRow, DropRow, RenderCheckRow } from "../db/schema";
import { findDropBySlug } from "../db/queries";
import { refuseDisabled } from "../safety/disabled";
import { findPreview, findRenderCheck, saveRenderCheck } from "../db/renders";
import { slugOr404 } from "../input";
import { browserFor, browserSource, inQueue, reachRule } from "./browser";
import { runCheck, shrinkPng, type CheckOptions } from "./check";
import type { DeployRender, RenderFindings, RenderResult, RenderUnavailable } from "../schemas";

// The render check as the service offers it: who may start one and how often (the plan table's
// render_checks_per_hour per account, or per client address when anonymous), running it in the
// process's queue, and keeping the result as the drop's latest with its screenshots in storage.

/** Whose rate a check counts against. */
export interface RenderSubject {
  tier: Tier;
  /** An account id, or the client address of an anonymous caller. */
  key: string;
}

export function renderSubject(account: AccountRow | null, address: string): RenderSubject {
  return account ? { tier: account.plan, key: `account:${account.id}` } : { tier: "anonymous", key: `ip:${address}` };
}

/** A check that did not run, and why (a deploy answers it as its `render`; the routes throw it). */
class NotRun extends Error {
  constructor(readonly unavailable: RenderUnavailable) {
    super(unavailable.hint);
  }
}

/** Counts one check against the subject's hourly rate (the plan's), or says when the next is allowed. */
async function spendRate(ctx: AppContext, subject: RenderSubject): Promise<void> {
  const max = limits[subject.tier].renderChecksPerHour;
  try {
    await enforceLimit(ctx, "renderCheck", subject.key, max);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "rate_limited") throw err;
    const wait = Number(err.headers["Retry-After"]);
    throw new NotRun({
      status: "unavailable",
      reason: "rate_limited",
      retry_after: wait,
      hint: `At most ${max} render checks an hour on the ${subject.tier} plan; the next is allowed in ${wait} seconds.`,
    });
  }
}

/** The caller's drop by slug; another account's answers exactly as an absent one. */
async function ownedDrop(ctx: AppContext, account: AccountRow, rawSlug: unknown): Promise<DropRow> {
  const absent = () => new ApiError("not_found", "No drop with that slug in this account.");
  const slug = slugOr404(rawSlug, absent);
  const drop = await withDb(() => findDropBySlug(ctx.db, slug));
  if (!drop || drop.ownerId !== account.id) throw absent();
  return drop;
}

/** A screenshot's unguessable URL under BASE_URL/previews/, or null without one. */
export const previewUrl = (ctx: AppContext, id: string | null) =>
  id ? `${ctx.env.BASE_URL}/previews/${id}.png` : null;

/** The render object of a stored check. */
export function renderOf(ctx: AppContext, row: RenderCheckRow): RenderResult {
  return {
    ...row.result,
    screenshots: { desktop: previewUrl(ctx, row.desktopId), phone: previewUrl(ctx, row.phoneId) },
  };
}

/** A finished check of a drop: its render object, and the desktop screenshot for an MCP image (at most RENDER_MCP_IMAGE_BYTES). */
export interface DropCheck {
  render: RenderResult;
  desktopPng?: Buffer;
}

/**
 * Checks the drop's live version (or the page `at`, one of its preview hosts) in a real browser
 * and stores the result as its latest. Throws
 * NotRun when no browser is set up or the subject's rate is spent (neither counts a check).
 */
async function checkDrop(
  ctx: AppContext,
  drop: Pick<DropRow, "id" | "slug">,
  subject: RenderSubject,
  opts: CheckOptions = {},
  at?: string,
): Promise<DropCheck> {
  const source = browserSource(ctx.env);
  if (source.kind === "none") throw new NotRun({ status: "unavailable", reason: "no_browser", hint: source.hint });
  await spendRate(ctx, subject);
  const url = at ?? dropUrl(drop.slug, ctx.env);
  const run = await inQueue(ctx.env.RENDER_CONCURRENCY, async () => {
    const { browser } = await browserFor(ctx.env, source).catch((err: unknown) => {
      console.error("[render] the browser could not be started:", err instanceof Error ? err.message : err);
      throw new NotRun({
        status: "unavailable",
        reason: "browser_error",
        hint: "The render check's browser could not be started or reached; an operator should check RENDER_BROWSER_PATH or RENDER_CDP_URL.",
      });
    });
    const routeRule = source.kind === "cdp" ? reachRule(ctx.env) : undefined;
    const checked = await runCheck(browser, url, { ...opts, routeRule });
    metrics().renderChecks.inc({ outcome: checked.findings.status });
    // The MCP image block's copy, scaled down when the screenshot is too large for it.
    const desktop = checked.screenshots.desktop;
    const small = desktop && (await shrinkPng(browser, desktop, RENDER_MCP_IMAGE_BYTES).catch(() => undefined));
    return { ...checked, small };
  });
  const row = await store(ctx, drop.id, run.findings, run.screenshots);
  return { render: renderOf(ctx, row), desktopPng: run.small };
}

/** Writes the screenshots, then the row; the replaced check's screenshots are deleted after. */
async function store(
  ctx: AppContext,
  dropId: string,
  findings: RenderFindings,
  shots: { desktop?: Buffer; phone?: Buffer },
): Promise<RenderCheckRow> {
  const put = async (png: Buffer | undefined) => {
    if (!png) return { id: null, ref: null };
    const id = randomBytes(16).toString("hex");
    const ref = await ctx.storage.put(`${dropId}/previews/${id}.png`, png, "image/png");
    return { id, ref };
  };
  const desktop = await put(shots.desktop);
  const phone = await put(shots.phone);
  const row = {
    dropId,
    result: findings,
    desktopId: desktop.id,
    desktopRef: desktop.ref,
    phoneId: phone.id,
    phoneRef: phone.ref,
    checkedAt: new Date(ctx.now()),
  };
  const old = await withDb(() => saveRenderCheck(ctx.db, row));
  for (const ref of [old?.desktopRef, old?.phoneRef])
    if (ref) await ctx.storage.delete(ref).catch((err) => console.error("[render] could not delete a screenshot", err));
  return row;
}

/**
 * The `render` of a deploy answer: a check of what the deploy made, or why none ran. A staged
 * deploy (promoted: false) is checked at its version URL, not the live host that still serves
 * the version before it (the pull-request preview the Action reports). Never throws for the
 * check's sake.
 */
export async function renderForDeploy(
  ctx: AppContext,
  answer: { slug: string; promoted?: boolean; version_url?: string | null },
  subject: RenderSubject,
): Promise<{ render: DeployRender; desktopPng?: Buffer }> {
  const { slug } = answer;
  try {
    const drop = await withDb(() => findDropBySlug(ctx.db, slug));
    if (!drop) throw new Error(`the drop ${slug} just deployed is gone`);
    const staged = answer.promoted === false && answer.version_url ? answer.version_url : undefined;
    return await checkDrop(ctx, drop, subject, {}, staged);
  } catch (err) {
    if (err instanceof NotRun) return { render: err.unavailable };
    console.error("[render] check failed:", err);
    return {
      render: {
        status: "unavailable",
        reason: "browser_error",
        hint: "The render check could not run this time; the deploy itself succeeded. Retry with POST /drops/{slug}/render.",
      },
    };
  }
}

/**
 * A check of a reported drop (lib/render/reported.ts), counted against the drop's own rate (the
 * anonymous plan's, keyed by the drop) rather than the reporter's, so repeated reports of one
 * drop start at most that many checks an hour. Null when none ran (no browser, rate spent).
 */
export async function checkReportedDrop(
  ctx: AppContext,
  drop: Pick<DropRow, "id" | "slug">,
): Promise<RenderResult | null> {
  try {
    return (await checkDrop(ctx, drop, { tier: "anonymous", key: `report:${drop.id}` })).render;
  } catch (err) {
    if (err instanceof NotRun) return null;
    throw err;
  }
}

/** The error a route answers for a check that did not run. */
function notRunError(n: NotRun): ApiError {
  const u = n.unavailable;
  if (u.reason === "rate_limited")
    return new ApiError("rate_limited", `Too many render checks: ${u.hint}`, {
      hint: `Wait ${u.retry_after} seconds and retry.`,
      docs: "limits",
      headers: { "Retry-After": String(u.retry_after) },
    });
  return new ApiError("upstream_unavailable", "Render checks are not available on this server right now.", {
    hint: u.hint,
    docs: "render-check",
    headers: { "Retry-After": "60" },
  });
}

// POST /drops/{slug}/render – check the live version now (owner); synchronous.
export async function renderOwnedDrop(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  opts: CheckOptions = {},
): Promise<DropCheck> {
  const drop = await ownedDrop(ctx, account, slug);
  // A disabled drop takes no writes, a check (which replaces its screenshots) included.
  refuseDisabled(drop);
  try {
    return await checkDrop(ctx, drop, renderSubject(account, ""), opts);
  } catch (err) {
    if (err instanceof NotRun) throw notRunError(err);
    throw err;
  }
}

// GET /drops/{slug}/render – the drop's latest check (owner); 404 before any.
export async function latestRender(ctx: AppContext, account: AccountRow, slug: unknown): Promise<RenderResult> {
  const drop = await ownedDrop(ctx, account, slug);
  const row = await withDb(() => findRenderCheck(ctx.db, drop.id));
  if (!row)
    throw new ApiError("not_found", `The drop ${drop.slug} has not been checked in a browser yet.`, {
      hint: `POST /drops/${drop.slug}/render checks it now.`,
      docs: "render-check",
    });
  return renderOf(ctx, row);
}

/** Whether this server can run checks, and if not, why (the dashboard's button says it). */
export function renderAvailability(ctx: AppContext): { available: true } | { available: false; hint: string } {
  const source = browserSource(ctx.env);
  return source.kind === "none" ? { available: false, hint: source.hint } : { available: true };
}

/** The screenshot as an MCP image block's data: base64 of a PNG within RENDER_MCP_IMAGE_BYTES, or null. */
export function mcpImage(png: Buffer | undefined): string | null {
  return png && png.byteLength <= RENDER_MCP_IMAGE_BYTES ? png.toString("base64") : null;
}

const PREVIEW_FILE = /^([0-9a-f]{32})\.png$/;

// GET /previews/{file} – a check's screenshot, to anyone with its unguessable URL; 404 once the
// drop is deleted (its row and bytes go with it), expired, or the check replaced.
export async function servePreview(ctx: AppContext, file: string, method: string): Promise<Response> {
  const id = PREVIEW_FILE.exec(file)?.[1];
  const found = id ? await withDb(() => findPreview(ctx.db, id)) : null;
  const gone = !found || (found.drop.expiresAt !== null && found.drop.expiresAt.getTime() <= ctx.now());
  const body = gone ? null : await ctx.storage.get(found.ref);
  if (gone || !body) throw new ApiError("not_found", "No such screenshot.");
  const headers = {
    "Content-Type": "image/png",
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
  };
  if (method === "HEAD") {
    await body.cancel().catch(() => undefined);
    return new Response(null, { status: 200, headers });
  }
  return new Response(body, { status: 200, headers });
}
