import { viewersOf, type Viewer } from "../access/viewer";
import type { AppContext } from "../context";
import { findDropAccess } from "../db/access";
import { withDb } from "../db/errors";
import { findUsableShareLink } from "../db/sharing";
import { allowListMatches } from "../patterns";
import { isUnlocked, lockPage, unlock, UNLOCK_PATH } from "./access";
import type { Manifest } from "./cache";
import { visitedUrl } from "./disabled";
import { askForLink, askPage, openSigninLink, SIGNIN_PATH } from "./emails";
import { canonicalHost } from "./host";
import { membersRedirect, unlockWithToken } from "./members";
import { notFoundPage } from "./pages";
import { openShareLink, SHARE_PATH } from "./share";
import type { ServeRequest, ServeResult } from "./types";

// The gate's parts together: which paths of a drop host are the gate's own (the password form,
// the members' token, the ask page's form and the mailed sign-in link), whether a request to a
// protected drop may pass, and what it gets when it may not.

/** Whether a POST goes to one of the gate's forms (every other POST to a drop host is a 405). */
export function isGateForm(req: Pick<ServeRequest, "method" | "pathname">): boolean {
  return req.method === "POST" && (req.pathname === UNLOCK_PATH || req.pathname === SIGNIN_PATH);
}

/** The gate's own answer to a request for one of its paths, or undefined when the path is the drop's. */
export function gateRoute(
  ctx: AppContext,
  m: Manifest,
  req: ServeRequest,
): Promise<ServeResult> | ServeResult | undefined {
  const mode = m.drop.accessMode;
  if (req.method === "POST")
    return req.pathname === UNLOCK_PATH
      ? unlock(ctx, m, req)
      : mode === "emails"
        ? askForLink(ctx, m, req)
        : notFoundPage();
  if (req.method !== "GET") return undefined;
  if (req.pathname === UNLOCK_PATH && mode === "members") return unlockWithToken(ctx, m, req);
  if (req.pathname === SIGNIN_PATH && mode === "emails") return openSigninLink(ctx, m, req);
  if (req.pathname === SHARE_PATH)
    return openShareLink(ctx, m, req).then((r) => r ?? lockedAnswer(ctx, m, { ...req, pathname: "/", search: "" }));
  return undefined;
}

/**
 * Whether a request to a protected drop may pass: an unlock cookie (password, members), or a
 * viewer cookie whose address is on the drop's list as it is now or whose share link still works
 * (read from the database, never a cached copy, so an address taken off the list or a revoked
 * link is out at once). Sets `req.viewer` for the counts.
 */
export function gateOpen(ctx: AppContext, m: Manifest, req: ServeRequest): boolean | Promise<boolean> {
  const mode = m.drop.accessMode;
  if (mode === "members") return isUnlocked(ctx, m, req);
  if (mode === "password" && isUnlocked(ctx, m, req)) return true;
  const viewers = viewersOf(
    ctx.env,
    req.headers.get("cookie"),
    m.drop.id,
    m.drop.accessPolicyVersion,
    ctx.now(),
    canonicalHost(req.headers.get("host")),
  );
  if (viewers.length === 0) return false;
  return stillAllowed(ctx, m, req, viewers);
}

/** Whether a viewer the cookies name may still see the drop: an address on its list now, or a share link that still works. */
async function stillAllowed(ctx: AppContext, m: Manifest, req: ServeRequest, viewers: Viewer[]): Promise<boolean> {
  const access = await withDb(() => findDropAccess(ctx.db, m.drop.id));
  if (!access || access.accessMode !== m.drop.accessMode || access.accessPolicyVersion !== m.drop.accessPolicyVersion)
    return false;
  for (const v of viewers) {
    if ("email" in v) {
      if (access.accessMode === "emails" && allowListMatches(access.accessAllow ?? [], v.email)) {
        req.viewer = v.email;
        return true;
      }
    } else {
      const link = await withDb(() => findUsableShareLink(ctx.db, { id: v.shareLink }, new Date(ctx.now())));
      if (link && link.dropId === m.drop.id) return true;
    }
  }
  return false;
}

/** What a request that may not pass gets: the members' redirect, the ask page or the password form. */
export function lockedAnswer(ctx: AppContext, m: Manifest, req: ServeRequest): ServeResult {
  const returnTo = req.pathname + (req.search ?? "");
  if (m.drop.accessMode === "members") return membersRedirect(ctx, m, req);
  if (m.drop.accessMode === "emails") return askPage(401, returnTo, undefined, visitedUrl(req));
  return lockPage(401, returnTo, undefined, {}, visitedUrl(req));
}
