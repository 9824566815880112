import { getContext } from "../context";
import { json, type RouteHandlers } from "../http";
import { appendFromRequest, deployFromGrant, deployFromRequest } from "./request";
import { receiveUpload } from "./uploads";
import { idempotent } from "../idempotency";
import { wantsRender, withRender } from "../render/deploy";
import { optionalCaller } from "../auth/caller";
import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { aliasDeployed, aliasForDeploy } from "./alias";

// The handlers of the routes that receive deploy bytes, defined once. On Vercel the route.ts
// files run them through routes(); self-hosted the data plane (lib/plane/node.ts) runs the same
// objects through the same handle() before Next sees the request, so a body is read straight
// from the socket instead of through the framework's copy of it. Writes that accept an
// Idempotency-Key are wrapped here (lib/idempotency.ts), so both paths honour it.

/** POST /deploy – create a drop from HTML, a FilesBody or a zip. */
export const deployHandlers: RouteHandlers = {
  POST: idempotent(async (req) => {
    const ctx = await getContext();
    const render = wantsRender(req);
    const name = new URL(req.url).searchParams.get("name");
    const aliased = await askedAlias(ctx, req, name === null ? null : { name });
    const deployed = await deployFromRequest(ctx, req);
    const answer = aliased ? await aliasDeployed(ctx, aliased.account, deployed, aliased.alias) : deployed;
    return json(await withRender(ctx, req, render, answer));
  }),
};

/** `?alias=`, checked before the deploy writes anything (lib/deploy/alias.ts); null without it. */
async function askedAlias(
  ctx: AppContext,
  req: Request,
  target: { slug: string } | { name: string } | null,
): Promise<{ alias: string; account: AccountRow } | null> {
  const raw = new URL(req.url).searchParams.get("alias");
  if (raw === null) return null;
  const caller = await optionalCaller(ctx, req);
  const alias = await aliasForDeploy(ctx, raw, caller.account, target);
  return alias && caller.account ? { alias, account: caller.account } : null;
}

/**
 * POST /deploy/once/{token} – the bodies of POST /deploy, through a one-time grant (MCP
 * deploy_directory); the render check when the grant's issuer asked for one (render_check).
 */
export const deployOnceHandlers: RouteHandlers<{ token: string }> = {
  POST: async (req, { token }) => {
    const ctx = await getContext();
    const { answer, render, caller } = await deployFromGrant(ctx, req, token);
    return json(await withRender(ctx, req, render, answer, caller));
  },
};

/** POST /deploy/{slug} – append files to a drop (subscribers). */
export const appendHandlers: RouteHandlers<{ slug: string }> = {
  POST: idempotent(async (req, { slug }) => {
    const ctx = await getContext();
    const render = wantsRender(req);
    const aliased = await askedAlias(ctx, req, { slug });
    const appended = await appendFromRequest(ctx, req, slug);
    const answer = aliased ? await aliasDeployed(ctx, aliased.account, appended, aliased.alias) : appended;
    return json(await withRender(ctx, req, render, answer));
  }),
};

/** PUT /deploy/uploads/{token}/{sha256} – the raw bytes of one content, checked and stored. */
export const uploadHandlers: RouteHandlers<{ token: string; sha256: string }> = {
  PUT: async (req, { token, sha256 }) => json(await receiveUpload(await getContext(), req, token, sha256), 201),
};
