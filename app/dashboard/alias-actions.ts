"use server";

import { revalidatePath } from "next/cache";
import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { deleteDropAlias, setDropAlias } from "@/lib/drops/aliases";
import { check, text } from "./check";
import { aliasBodySchema, type AliasResponse } from "@/lib/schemas";

// The drop page's aliases: point one at a version (create or move) and delete one, as the
// session's account through the same lib/drops service and team gate as
// PUT/DELETE /drops/{slug}/aliases/{name} (runAsSession refuses a write from another origin).

export async function setAliasAction(
  slug: unknown,
  name: unknown,
  version: unknown,
): Promise<ActionResult<AliasResponse>> {
  const r = await runAsSession("PUT /drops/{slug}/aliases/{name}", (ctx, caller) =>
    setDropAlias(ctx, caller.account, check(text, slug), name, check(aliasBodySchema, { version }).version),
  );
  if (r.ok) revalidatePath(`/dashboard/drops/${String(slug)}`);
  return r;
}

export async function deleteAliasAction(slug: unknown, name: unknown): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession("DELETE /drops/{slug}/aliases/{name}", async (ctx, caller) => {
    await deleteDropAlias(ctx, caller.account, check(text, slug), name);
    return { deleted: String(name) };
  });
  if (r.ok) revalidatePath(`/dashboard/drops/${String(slug)}`);
  return r;
}
