import { sharingTokenHash, viewerCookie } from "../access/viewer";
import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { findUsableShareLink } from "../db/sharing";
import { SHARE_TOKEN_PATTERN } from "../patterns";
import { gateHeaders } from "./access";
import type { Manifest } from "./cache";
import { canonicalHost } from "./host";
import type { ServeRequest, ServeResult } from "./types";

// The drop host's side of a share link: GET SHARE_PATH?token=… on the host the link was made for
// sets the viewer cookie naming the link (lib/access/viewer.ts) and sends the visitor to "/". A
// link revoked, expired, made for another drop or host, or a drop no longer password or emails,
// opens nothing: the caller shows the drop's lock.

export const SHARE_PATH = "/.well-known/dropsite/share";

export async function openShareLink(ctx: AppContext, m: Manifest, req: ServeRequest): Promise<ServeResult | undefined> {
  if (m.drop.accessMode !== "password" && m.drop.accessMode !== "emails") return undefined;
  const token = new URLSearchParams(req.search ?? "").get("token") ?? "";
  if (!SHARE_TOKEN_PATTERN.test(token)) return undefined;
  const now = ctx.now();
  const link = await withDb(() =>
    findUsableShareLink(ctx.db, { tokenHash: sharingTokenHash(ctx.env, token) }, new Date(now)),
  );
  const host = canonicalHost(req.headers.get("host"));
  if (!link || link.dropId !== m.drop.id || link.host !== host) return undefined;
  return {
    status: 302,
    headers: {
      Location: "/",
      "Content-Length": "0",
      ...gateHeaders(),
      "Set-Cookie": viewerCookie(ctx.env, m.drop.id, m.drop.accessPolicyVersion, now, host, { shareLink: link.id }),
    },
    body: null,
  };
}
