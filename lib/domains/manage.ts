import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { AppContext } from "../context";
import {
  activateDomain,
  deleteDomainRow,
  findDomain,
  insertDomain,
  isActiveDomain,
  listAccountDomains,
} from "../db/domains";
import { databaseError, withDb } from "../db/errors";
import { findDropBySlug, isUniqueViolation } from "../db/queries";
import type { AccountRow, DomainRow } from "../db/schema";
import { ApiError } from "../errors";
import { checkCustomHostname, normalizeHostname } from "../hostname";
import { readJson } from "../http";
import { isPlainText } from "../input";
import { limits } from "../plans";
import { domainBodySchema, type DomainCheck, type DomainInfo, type DomainVerifyResponse } from "../schemas";
import { domainChanged } from "../serve/cache";
import { ownedDrop } from "../drops/manage";
import { refuseDisabled } from "../safety/disabled";
import { challengeName, lookupTxt } from "./dns";
import { attachDomain, detachDomain } from "./vercel";

// Custom domains (Team plan): POST/GET/DELETE /domains, POST /domains/{hostname}/verify and
// GET /domains/tls-allowed, and the MCP tools over them. A domain points at one of the
// account's drops by slug; it is pending until a TXT record at _dropsite-challenge.<hostname>
// holds its random value, then active: lib/serve serves the drop's live version there.

/** The DNS records the owner publishes: the ownership proof and where the name points. */
export function toDomainInfo(ctx: AppContext, row: DomainRow): DomainInfo {
  const serve = ctx.env.SERVE_DOMAIN.replace(/:\d+$/, "");
  return {
    hostname: row.hostname,
    slug: row.slug,
    status: row.status,
    verification: { type: "TXT", name: challengeName(row.hostname), value: row.verificationValue },
    // The drop's own host resolves wherever drops are served (the serve domain's wildcard record).
    target: { type: "CNAME", value: `${row.slug}.${serve}` },
    created_at: row.createdAt.toISOString(),
    verified_at: row.verifiedAt?.toISOString() ?? null,
  };
}

function requireTeam(account: AccountRow): void {
  if (limits[account.plan].maxDomains > 0) return;
  throw new ApiError("subscription_required", "Custom domains are part of the Team plan.", {
    hint: 'Upgrade to the team plan (POST /billing/checkout with {"plan":"team"}); see upgrade_url.',
    upgrade: true,
    docs: "domains",
  });
}

function shown(raw: unknown): string {
  const s = String(raw);
  return isPlainText(s) ? s.slice(0, 100) : "with that name";
}

/** The normal form of a hostname in a path or query; anything that is none is no domain of anyone (404). */
function pathHostname(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const r = normalizeHostname(decoded);
  return r.ok ? r.hostname : undefined;
}

function noSuchDomain(raw: unknown): ApiError {
  return new ApiError("not_found", `No domain ${shown(raw)} in this account.`, {
    hint: "GET /domains lists the account's domains.",
    docs: "domains",
  });
}

/** The account's domain of a path's hostname; another account's answers exactly as an absent one (404). */
async function ownedDomain(ctx: AppContext, account: AccountRow, raw: unknown): Promise<DomainRow> {
  const hostname = pathHostname(raw);
  const row = hostname === undefined ? undefined : await withDb(() => findDomain(ctx.db, hostname));
  if (!row || row.accountId !== account.id) throw noSuchDomain(raw);
  return row;
}

/** The JSON body of POST /domains, unchecked: createDomain checks the plan first. */
export function readDomainBody(req: Request): Promise<unknown> {
  return readJson(req, z.unknown());
}

// POST /domains – add a pending custom domain for one of the account's drops.
export async function createDomain(ctx: AppContext, account: AccountRow, input: unknown): Promise<DomainInfo> {
  requireTeam(account);
  const parsed = domainBodySchema.safeParse(input);
  if (!parsed.success) {
    throw ApiError.fromZod(parsed.error, "The body", {
      hint: 'Send {"hostname": "docs.example.com", "slug": "<slug of your drop>"}.',
      docs: "domains",
    });
  }
  const checked = checkCustomHostname(parsed.data.hostname, {
    appHost: new URL(ctx.env.BASE_URL).host,
    serveDomain: ctx.env.SERVE_DOMAIN,
  });
  if (!checked.ok) {
    throw new ApiError(
      "invalid_request",
      `The hostname ${shown(parsed.data.hostname)} cannot be a custom domain: ${checked.reason}.`,
      {
        hint: "Send a full hostname you control, e.g. docs.example.com (no scheme, port or wildcard).",
        docs: "domains",
      },
    );
  }
  const { hostname } = checked;
  const drop = await ownedDrop(ctx, account, parsed.data.slug);
  refuseDisabled(drop);
  const cap = limits[account.plan].maxDomains;
  let row: DomainRow | "cap";
  try {
    row = await insertDomain(
      ctx.db,
      {
        hostname,
        accountId: account.id,
        slug: drop.slug,
        verificationValue: `dropsite-verify=${randomBytes(18).toString("base64url")}`,
        now: new Date(ctx.now()),
      },
      cap,
    );
  } catch (err) {
    if (isUniqueViolation(err)) {
      const held = await withDb(() => findDomain(ctx.db, hostname));
      throw new ApiError(
        "conflict",
        held?.accountId === account.id
          ? `This account already has the domain ${hostname}.`
          : `The domain ${hostname} is held by another account.`,
        {
          hint:
            held?.accountId === account.id
              ? "GET /domains shows it; DELETE it first to point it at another drop."
              : "A hostname serves one account's drop; its owner must delete it first.",
          docs: "domains",
        },
      );
    }
    throw databaseError(err);
  }
  if (row === "cap") {
    throw new ApiError(
      "invalid_request",
      `This account holds ${cap} custom domains, the most the ${account.plan} plan allows.`,
      {
        hint: "DELETE /domains/<hostname> one you no longer use.",
        docs: "domains",
        details: { limit: "max_domains", allowed: cap, plan: account.plan },
      },
    );
  }
  await domainChanged(ctx, hostname);
  return toDomainInfo(ctx, row);
}

// GET /domains – the account's domains, oldest first.
export async function listDomains(ctx: AppContext, account: AccountRow): Promise<{ domains: DomainInfo[] }> {
  const rows = await withDb(() => listAccountDomains(ctx.db, account.id));
  return { domains: rows.map((r) => toDomainInfo(ctx, r)) };
}

// POST /domains/{hostname}/verify – look up the TXT record; active once it holds the value.
export async function verifyDomain(ctx: AppContext, account: AccountRow, raw: unknown): Promise<DomainVerifyResponse> {
  const row = await ownedDomain(ctx, account, raw);
  const name = challengeName(row.hostname);
  const txt = await lookupTxt(ctx.env, name);
  const check: DomainCheck = {
    type: "TXT",
    name,
    ok: txt.found.includes(row.verificationValue),
    found: txt.found.slice(0, 20).map((v) => v.slice(0, 300)),
  };
  if (txt.error) check.error = txt.error;
  if (!check.ok) return { ...toDomainInfo(ctx, row), checks: [check] };
  // TLS first: on Vercel a domain is served only once the project has it.
  const vercel = await attachDomain(ctx.env, row.hostname);
  const now = new Date(ctx.now());
  const active = await withDb(() => ctx.db.transaction((tx) => activateDomain(tx, row.hostname, account.id, now)));
  if (!active) throw noSuchDomain(raw);
  await domainChanged(ctx, row.hostname);
  return { ...toDomainInfo(ctx, active), checks: [check], ...(vercel ? { vercel } : {}) };
}

// DELETE /domains/{hostname} – stop serving the drop there, and remove the domain from Vercel.
export async function deleteDomain(ctx: AppContext, account: AccountRow, raw: unknown): Promise<{ deleted: string }> {
  const row = await ownedDomain(ctx, account, raw);
  // Vercel first: a failure there leaves the domain in place, so a retry finds it.
  await detachDomain(ctx.env, row.hostname);
  const gone = await withDb(() => deleteDomainRow(ctx.db, account.id, row.hostname));
  if (!gone) throw noSuchDomain(raw);
  // The CDN may hold the drop's answers for this hostname: purge them (a lookup failure only skips that).
  const drop = await findDropBySlug(ctx.db, row.slug).catch(() => undefined);
  await domainChanged(ctx, row.hostname, drop?.ownerId === account.id ? { dropId: drop.id } : undefined);
  return { deleted: row.hostname };
}

// GET /domains/tls-allowed?domain= – Caddy's on-demand TLS `ask`: 200 for an active domain of a live drop.
export async function tlsAllowed(ctx: AppContext, domain: string | null): Promise<{ domain: string; allowed: true }> {
  const hostname = pathHostname(domain ?? "");
  if (hostname === undefined || !(await withDb(() => isActiveDomain(ctx.db, hostname, new Date(ctx.now()))))) {
    throw new ApiError("not_found", "No active custom domain of that name.", { docs: "domains" });
  }
  return { domain: hostname, allowed: true };
}
