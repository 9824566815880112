import { randomBytes } from "node:crypto";
import { waitUntil } from "@vercel/functions";
import { sharingTokenHash, viewerCookie } from "../access/viewer";
import type { AppContext } from "../context";
import { findDropAccess } from "../db/access";
import { withDb } from "../db/errors";
import { insertSigninToken, recordViewerSignIn, takeSigninToken } from "../db/sharing";
import { publicScheme } from "../env";
import { ApiError } from "../errors";
import { sendMail } from "../mail";
import { allowListMatches, normalEmail, SIGNIN_TOKEN_PATTERN } from "../patterns";
import { SIGNIN_FORM_BODY_BYTES, SIGNIN_LINK_SECONDS } from "../plans";
import { checkLimit, enforceLimit } from "../ratelimit/guard";
import { crossOrigin, GATE_POLICY, GATE_STYLE, gateHeaders, safeReturnPath } from "./access";
import type { Manifest } from "./cache";
import { reportLinkHtml } from "./disabled";
import { canonicalHost } from "./host";
import type { ServeRequest, ServeResult } from "./types";

// The drop host's side of an emails-only drop (DESIGN "Sharing by identity"). A visitor without
// a viewer cookie gets the ask page (401, no-store, noindex, a form that works without script)
// on every path. Its form posts an address to SIGNIN_PATH on the same host; the answer is the
// same page whatever the address (on the list or not, under the mail rates or past them), and
// the work happens after the answer is out: only an address on the list as it is then, within 5
// mails an hour per address and 50 per drop, gets a mail with a one-time link to SIGNIN_PATH on
// that host. Opening the link (a plain GET) spends it for the host-only viewer cookie; a spent,
// expired or since-refused link gets the ask page again, offering a new link. Tokens are stored
// as keyed hashes only, and a URL's query never reaches the request log.

export const SIGNIN_PATH = "/.well-known/dropsite/sign-in";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function htmlResult(status: number, title: string, inner: string, extra: Record<string, string> = {}): ServeResult {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${GATE_STYLE}</style></head><body><main>` +
    `<h1>${escapeHtml(title)}</h1>${inner}</main></body></html>`;
  const body = new TextEncoder().encode(html);
  return {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Content-Security-Policy": GATE_POLICY,
      ...gateHeaders(),
      ...extra,
    },
    body,
  };
}

/** The ask page: the address form, posting to SIGNIN_PATH with the path to come back to. */
export function askPage(status: number, returnTo: string, message?: string, reportUrl?: string): ServeResult {
  const error = message ? `<p class="error" id="signin-error" role="alert">${escapeHtml(message)}</p>` : "";
  const described = message ? ' aria-describedby="signin-error"' : "";
  return htmlResult(
    status,
    "Sign in to view this site",
    `<p>This site is shared with invited people. Enter your email address to get a one-time sign-in link.</p>${error}` +
      `<form method="post" action="${SIGNIN_PATH}"><input type="hidden" name="path" value="${escapeHtml(safeReturnPath(returnTo))}">` +
      `<label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" inputmode="email" required autofocus${described}>` +
      `<button type="submit">Email me a link</button></form>${reportLinkHtml(reportUrl)}`,
  );
}

/** The one answer to every well-formed address: nothing in it says whether a mail went out. */
function sentPage(returnTo: string): ServeResult {
  const minutes = SIGNIN_LINK_SECONDS / 60;
  return htmlResult(
    200,
    "Check your inbox",
    `<p>If this address may view this site, a sign-in link is on its way to it. The link works once, within ${minutes} minutes.</p>` +
      `<p><a href="${escapeHtml(safeReturnPath(returnTo))}">Use another address</a></p>`,
  );
}

function formType(req: ServeRequest): string {
  return (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

// POST /.well-known/dropsite/sign-in on an emails-only drop's host: the ask page's form.
export async function askForLink(ctx: AppContext, m: Manifest, req: ServeRequest): Promise<ServeResult> {
  if (crossOrigin(req)) return askPage(403, "/", "This form only works from the site's own page.");
  if (formType(req) !== "application/x-www-form-urlencoded")
    return askPage(400, "/", "Send your address with the form on this page.");
  const raw = req.readBody ? await req.readBody(SIGNIN_FORM_BODY_BYTES) : new Uint8Array(0);
  if (raw === "too_large") return askPage(413, "/", "The form sent more than this page accepts.");
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    return askPage(400, "/", "The form could not be read.");
  }
  const returnTo = safeReturnPath(form.get("path") ?? "/");
  const email = normalEmail(form.get("email") ?? "");
  if (email === null) return askPage(400, returnTo, "Enter an email address, like ana@example.org.");
  const host = canonicalHost(req.headers.get("host"));
  inBackground(ctx, () => mailLink(ctx, m.drop.id, email, host, returnTo));
  return sentPage(returnTo);
}

/** Runs `task` after the answer, never delaying or failing it (on Vercel the function stays up for it). */
function inBackground(ctx: AppContext, task: () => Promise<void>): void {
  const running = Promise.resolve()
    .then(task)
    .catch((err: unknown) =>
      console.error("[sign-in] sending a sign-in link failed:", err instanceof Error ? err.message : String(err)),
    );
  if (ctx.env.VERCEL) waitUntil(running);
}

/** Whether the mail rates let one more sign-in mail go to `email` for `dropId` (counting it when they do). */
async function withinMailRates(ctx: AppContext, dropId: string, email: string): Promise<boolean> {
  try {
    await checkLimit(ctx, "signinAddress", email);
    await checkLimit(ctx, "signinDrop", dropId);
    await enforceLimit(ctx, "signinAddress", email);
    await enforceLimit(ctx, "signinDrop", dropId);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.code === "rate_limited") return false;
    throw err;
  }
}

/** After the answer: a one-time link to `email`, when the drop's list as it is now lets it in and the rates allow. */
async function mailLink(ctx: AppContext, dropId: string, email: string, host: string, returnTo: string): Promise<void> {
  const access = await withDb(() => findDropAccess(ctx.db, dropId));
  if (!access || access.accessMode !== "emails" || !allowListMatches(access.accessAllow ?? [], email)) return;
  if (!(await withinMailRates(ctx, dropId, email))) return;
  const token = `si_${randomBytes(32).toString("base64url")}`;
  const now = ctx.now();
  await withDb(() =>
    insertSigninToken(ctx.db, {
      tokenHash: sharingTokenHash(ctx.env, token),
      dropId,
      email,
      host,
      policyVersion: access.accessPolicyVersion,
      createdAt: new Date(now),
      expiresAt: new Date(now + SIGNIN_LINK_SECONDS * 1000),
    }),
  );
  const q = new URLSearchParams({ token, return: returnTo });
  const link = `${publicScheme(ctx.env)}://${host}${SIGNIN_PATH}?${q.toString()}`;
  const minutes = SIGNIN_LINK_SECONDS / 60;
  await sendMail(ctx.env, {
    to: email,
    subject: `Your sign-in link for ${host}`,
    text: `Open this link to view ${host}:\n\n${link}\n\nIt works once, within ${minutes} minutes. If you did not ask for it, ignore this mail.\n`,
    html:
      `<p>Open this link to view ${escapeHtml(host)}:</p><p><a href="${escapeHtml(link)}">Sign in to ${escapeHtml(host)}</a></p>` +
      `<p>It works once, within ${minutes} minutes. If you did not ask for it, ignore this mail.</p>`,
  });
}

// GET /.well-known/dropsite/sign-in?token=…&return=… on an emails-only drop's host: the mailed link.
export async function openSigninLink(ctx: AppContext, m: Manifest, req: ServeRequest): Promise<ServeResult> {
  const q = new URLSearchParams(req.search ?? "");
  const returnTo = safeReturnPath(q.get("return") ?? "/");
  const token = q.get("token") ?? "";
  const again = () =>
    askPage(401, returnTo, "This sign-in link was used already or has expired. Enter your address for a new one.");
  if (!SIGNIN_TOKEN_PATTERN.test(token)) return again();
  // The policy as it is now, never a cached copy: an address taken off the list a moment ago is out.
  const row = await withDb(() => takeSigninToken(ctx.db, sharingTokenHash(ctx.env, token)));
  if (!row) return again();
  const access = await withDb(() => findDropAccess(ctx.db, m.drop.id));
  const host = canonicalHost(req.headers.get("host"));
  const now = ctx.now();
  if (
    row.dropId !== m.drop.id ||
    row.host !== host ||
    row.expiresAt.getTime() <= now ||
    !access ||
    access.accessMode !== "emails" ||
    access.accessPolicyVersion !== row.policyVersion ||
    !allowListMatches(access.accessAllow ?? [], row.email)
  )
    return again();
  await withDb(() => recordViewerSignIn(ctx.db, m.drop.id, row.email, new Date(now)));
  return {
    status: 302,
    headers: {
      Location: returnTo,
      "Content-Length": "0",
      ...gateHeaders(),
      "Set-Cookie": viewerCookie(ctx.env, m.drop.id, access.accessPolicyVersion, now, host, { email: row.email }),
    },
    body: null,
  };
}
