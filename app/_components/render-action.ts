"use server";

import { z } from "zod";
import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { ApiError } from "@/lib/errors";
import { renderOwnedDrop } from "@/lib/render/service";
import type { RenderResult } from "@/lib/schemas";

// The drop page's "Check in a browser": POST /drops/{slug}/render as the session's account.

export async function renderCheckAction(slug: unknown): Promise<ActionResult<RenderResult>> {
  return runAsSession("POST /drops/{slug}/render", async (ctx, caller) => {
    const parsed = z.string().max(1000).safeParse(slug);
    if (!parsed.success) throw ApiError.fromZod(parsed.error, "The input");
    return (await renderOwnedDrop(ctx, caller.account, parsed.data)).render;
  });
}
