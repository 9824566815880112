import type { z } from "zod";
import type { AppContext } from "../context";
import { dropUrl } from "../env";
import { listAudit, recordAudit } from "../db/audit";
import { findAccountsByIdOrEmail } from "../db/accounts";
import { withDb } from "../db/errors";
import { findDropBySlug } from "../db/queries";
import {
  deleteBlock,
  dropCase,
  findReport,
  grantAdmin,
  insertBlock,
  listBlocks,
  listQueue,
  resolveDropReports,
  setAccountSuspended,
  setDropDisabled,
  type Actor,
} from "../db/safety";
import type { AccountRow, BlockRow, DropRow } from "../db/schema";
import { ApiError } from "../errors";
import { removeDrop } from "../drops/manage";
import { isSlug, pageIntegers } from "../input";
import { dropChanged } from "../serve/cache";
import { normalizeCidr } from "../safety/blocks";
import { previewUrl } from "../render/service";
import {
  auditQuerySchema,
  blockBodySchema,
  disableBodySchema,
  queueQuerySchema,
  resolveBodySchema,
  suspendBodySchema,
} from "../safety/schemas";

// The operator actions, shared by the /admin/* API, the /admin page and `npm run admin`. Each
// writes its audit entry with the acting operator (an account id, or `cli`) and the reason.

function parse<S extends z.ZodType>(schema: S, input: unknown, subject: string): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw ApiError.fromZod(r.error, subject);
  return r.data;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function dropOr404(ctx: AppContext, slug: string): Promise<DropRow> {
  const drop = isSlug(slug) ? await withDb(() => findDropBySlug(ctx.db, slug)) : undefined;
  if (!drop) throw new ApiError("not_found", "No such drop.");
  return drop;
}

// GET /admin/queue
export async function adminQueue(ctx: AppContext, query: unknown) {
  const q = parse(queueQuerySchema, pageIntegers(query), "The query");
  const { total, rows } = await withDb(() => listQueue(ctx.db, q.status, q.limit, q.offset));
  return {
    total,
    items: rows.map((r) => {
      const seen = new Set<string>();
      const reasons: Record<string, number> = {};
      for (const rep of r.reports) {
        const k = `${rep.reporterHash} ${rep.reason}`;
        if (!seen.has(k)) reasons[rep.reason] = (reasons[rep.reason] ?? 0) + 1;
        seen.add(k);
      }
      const times = r.reports.map((rep) => rep.createdAt.getTime());
      return {
        slug: r.drop.slug,
        url: dropUrl(r.drop.slug, ctx.env),
        owner: r.drop.ownerId ? { id: r.drop.ownerId, email: r.ownerEmail } : null,
        reports: {
          count: new Set(r.reports.map((rep) => rep.reporterHash)).size,
          reasons,
          first_at: times.length ? new Date(Math.min(...times)).toISOString() : null,
          last_at: times.length ? new Date(Math.max(...times)).toISOString() : null,
        },
        findings: r.findings.map((f) => ({
          rule: f.rule,
          file: f.file,
          line: f.line,
          excerpt: f.excerpt,
          action: f.action,
          created_at: f.createdAt.toISOString(),
        })),
        disabled:
          r.drop.disabledReason && r.drop.disabledAt
            ? { reason: r.drop.disabledReason, at: r.drop.disabledAt.toISOString() }
            : null,
        // The latest render check's desktop screenshot; a disabled drop's are no longer served.
        ...(r.screenshotId && !r.drop.disabledAt ? { screenshot_url: previewUrl(ctx, r.screenshotId)! } : {}),
      };
    }),
  };
}

/** A drop's reports and scan findings, newest first, for the /admin page. */
export async function adminCase(ctx: AppContext, slug: string) {
  const drop = await dropOr404(ctx, slug);
  const c = await withDb(() => dropCase(ctx.db, drop.id));
  return {
    reports: c.reports.map((r) => ({
      id: r.id,
      reason: r.reason,
      details: r.details,
      contact: r.contact,
      status: r.status,
      url: r.url,
      created_at: r.createdAt.toISOString(),
    })),
    findings: c.findings.map((f) => ({
      rule: f.rule,
      file: f.file,
      line: f.line,
      excerpt: f.excerpt,
      action: f.action,
    })),
  };
}

// GET /admin/reports/{id}
export async function adminReport(ctx: AppContext, id: string) {
  const r = id.length <= 64 ? await withDb(() => findReport(ctx.db, id)) : undefined;
  if (!r) throw new ApiError("not_found", "No such report.");
  return {
    id: r.id,
    url: r.url,
    slug: r.slug,
    reason: r.reason,
    details: r.details,
    contact: r.contact,
    status: r.status,
    created_at: r.createdAt.toISOString(),
  };
}

// POST /admin/reports/{id}/resolve: resolves every open report of the report's drop, doing what it names.
export async function resolveReport(ctx: AppContext, actor: Actor, id: string, input: unknown) {
  const body = parse(resolveBodySchema, input, "The body");
  const report = await adminReport(ctx, id);
  const drop = await dropOr404(ctx, report.slug);
  const now = new Date(ctx.now());
  const resolved = await withDb(() => resolveDropReports(ctx.db, drop, body.action, actor, body.note ?? null, now));
  if (body.action === "disabled") {
    const category = report.reason === "appeal" ? "other" : report.reason;
    await disableDrop(ctx, actor, drop.slug, { reason: category, note: body.note });
  }
  if (body.action === "deleted") await deleteDropAsOperator(ctx, actor, drop.slug);
  return { id: report.id, slug: drop.slug, action: body.action, resolved };
}

// POST /admin/drops/{slug}/disable
export async function disableDrop(ctx: AppContext, actor: Actor, slug: string, input: unknown) {
  const body = parse(disableBodySchema, input, "The body");
  const drop = await dropOr404(ctx, slug);
  const now = new Date(ctx.now());
  const row = await withDb(() =>
    setDropDisabled(ctx.db, drop.slug, { reason: body.reason, note: body.note ?? null }, actor, now),
  );
  if (!row) throw new ApiError("not_found", "No such drop.");
  await dropChanged(ctx, drop, "disable");
  return { slug: row.slug, disabled: { reason: body.reason, at: now.toISOString() } };
}

// POST /admin/drops/{slug}/enable
export async function enableDrop(ctx: AppContext, actor: Actor, slug: string) {
  const drop = await dropOr404(ctx, slug);
  const row = await withDb(() => setDropDisabled(ctx.db, drop.slug, null, actor, new Date(ctx.now())));
  if (!row) throw new ApiError("not_found", "No such drop.");
  await dropChanged(ctx, drop, "enable");
  return { slug: row.slug, disabled: null };
}

// DELETE /admin/drops/{slug}: as the owner's delete (bytes, rows, purge), with the audit entry.
export async function deleteDropAsOperator(ctx: AppContext, actor: Actor, slug: string) {
  const drop = await dropOr404(ctx, slug);
  const out = await removeDrop(ctx, drop);
  await withDb(() =>
    recordAudit(ctx.db, {
      actor: actor.id,
      action: "drop.deleted",
      target: `drop:${drop.slug}`,
      at: new Date(ctx.now()),
    }),
  );
  return out;
}

async function accountOr404(ctx: AppContext, idOrEmail: string): Promise<AccountRow> {
  const found = idOrEmail.length <= 320 ? await withDb(() => findAccountsByIdOrEmail(ctx.db, idOrEmail)) : [];
  if (found.length !== 1)
    throw new ApiError("not_found", "No such account (or more than one with that email: use the id).");
  return found[0]!;
}

/** Suspends (reason) or unsuspends (null) an account; every drop of it follows (451 or back). */
async function setSuspension(
  ctx: AppContext,
  actor: Actor,
  idOrEmail: string,
  state: { reason: string; note: string | null } | null,
) {
  const account = await accountOr404(ctx, idOrEmail);
  const now = new Date(ctx.now());
  const out = await withDb(() => setAccountSuspended(ctx.db, account.id, state, actor, now));
  if (!out) throw new ApiError("not_found", "No such account.");
  for (const d of out.drops) await dropChanged(ctx, d, state ? "disable" : "enable");
  return { id: account.id, suspended: state ? { reason: state.reason, at: now.toISOString() } : null };
}

// POST /admin/accounts/{id}/suspend
export function suspendAccount(ctx: AppContext, actor: Actor, idOrEmail: string, input: unknown) {
  const body = parse(suspendBodySchema, input, "The body");
  return setSuspension(ctx, actor, idOrEmail, { reason: body.reason, note: body.note ?? null });
}

// POST /admin/accounts/{id}/unsuspend
export function unsuspendAccount(ctx: AppContext, actor: Actor, idOrEmail: string) {
  return setSuspension(ctx, actor, idOrEmail, null);
}

/** `npm run admin -- grant-admin <email|id>`. */
export async function grantOperator(ctx: AppContext, actor: Actor, idOrEmail: string) {
  const account = await accountOr404(ctx, idOrEmail);
  await withDb(() => grantAdmin(ctx.db, account.id, actor, new Date(ctx.now())));
  return { id: account.id, email: account.email };
}

function blockOut(b: BlockRow) {
  return {
    id: b.id,
    cidr: b.cidr,
    reason: b.reason,
    created_at: b.createdAt.toISOString(),
    expires_at: iso(b.expiresAt),
  };
}

// POST /admin/blocks
export async function addBlock(ctx: AppContext, actor: Actor, input: unknown) {
  const body = parse(blockBodySchema, input, "The body");
  const cidr = normalizeCidr(body.cidr);
  if (!cidr)
    throw new ApiError("invalid_request", "cidr is not an IPv4 or IPv6 range.", {
      hint: "Send a range such as 203.0.113.0/24 or 2001:db8::/32 (a single address: /32 or /128).",
      details: { field: "cidr" },
    });
  const now = new Date(ctx.now());
  const expiresAt = body.expires_in === undefined ? null : new Date(now.getTime() + body.expires_in * 1000);
  return blockOut(await withDb(() => insertBlock(ctx.db, { cidr, reason: body.reason, expiresAt }, actor, now)));
}

// GET /admin/blocks
export async function adminBlocks(ctx: AppContext) {
  return { blocks: (await withDb(() => listBlocks(ctx.db, new Date(ctx.now())))).map(blockOut) };
}

// DELETE /admin/blocks/{id}
export async function removeBlock(ctx: AppContext, actor: Actor, id: string) {
  const row = id.length <= 64 ? await withDb(() => deleteBlock(ctx.db, id, actor, new Date(ctx.now()))) : undefined;
  if (!row) throw new ApiError("not_found", "No such block.");
  return blockOut(row);
}

// GET /admin/audit
export async function adminAudit(ctx: AppContext, query: unknown) {
  const q = parse(auditQuerySchema, pageIntegers(query), "The query");
  const { total, entries } = await withDb(() => listAudit(ctx.db, q));
  return {
    total,
    entries: entries.map((e) => ({
      id: e.id,
      at: e.at.toISOString(),
      actor: e.actor,
      action: e.action,
      target: e.target,
      reason: e.reason,
    })),
  };
}
