"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { mintKey, revokeApiKey } from "@/lib/auth/keys";
import { claimDrop, deleteDrop } from "@/lib/drops/manage";
import { rollbackToVersion } from "@/lib/drops/versions";
import { startCheckout, openPortal } from "@/lib/billing/checkout";
import { claimVanity } from "@/lib/vanity";
import { ApiError } from "@/lib/errors";
import { claimBodySchema, mintKeyBodySchema, rollbackBodySchema } from "@/lib/schemas";

// Server actions of the dashboard: each one checks its arguments with zod (a server action is
// a public endpoint; anything can arrive) and calls the same lib/ service as its API route.

function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError("invalid_request", `Invalid input${issue?.path.length ? ` (${issue.path.map(String).join(".")})` : ""}: ${issue?.message ?? "invalid"}.`);
  }
  return parsed.data;
}

const text = z.string().max(1000);

export async function deleteDropAction(slug: unknown): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession((ctx, caller) => deleteDrop(ctx, caller.account, check(text, slug)));
  revalidatePath("/dashboard");
  return r;
}

export async function rollbackAction(slug: unknown, version: unknown): Promise<ActionResult<{ live_version: number }>> {
  const r = await runAsSession(async (ctx, caller) => {
    const s = check(text, slug);
    const body = check(rollbackBodySchema, { version });
    return { live_version: (await rollbackToVersion(ctx, caller.account, s, body.version)).live_version };
  });
  if (r.ok) revalidatePath(`/dashboard/drops/${String(slug)}`);
  return r;
}

export async function mintKeyAction(note: unknown): Promise<ActionResult<{ apiKey: string; keyId: string }>> {
  const r = await runAsSession(async (ctx, caller) => {
    const body = check(mintKeyBodySchema, { note });
    const k = await mintKey(ctx, caller, body.note);
    return { apiKey: k.apiKey, keyId: k.keyId };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function revokeKeyAction(keyId: unknown): Promise<ActionResult<{ revoked: string }>> {
  const r = await runAsSession((ctx, caller) => revokeApiKey(ctx, caller, check(text, keyId)));
  revalidatePath("/dashboard");
  return r;
}

export async function claimAction(slug: unknown, claimToken: unknown): Promise<ActionResult<{ slug: string; url: string }>> {
  const r = await runAsSession(async (ctx, caller) => {
    const c = await claimDrop(ctx, caller.account, check(claimBodySchema, { slug, claim_token: claimToken }));
    return { slug: c.slug, url: c.url };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function checkoutAction(plan: unknown): Promise<ActionResult<{ url: string }>> {
  return runAsSession(async (ctx, caller) => ({ url: (await startCheckout(ctx, caller.account, check(z.enum(["pro", "team"]), plan))).url }));
}

export async function portalAction(): Promise<ActionResult<{ url: string }>> {
  return runAsSession(async (ctx, caller) => ({ url: (await openPortal(ctx, caller.account)).url }));
}

export async function vanityAction(sub: unknown): Promise<ActionResult<{ sub: string; serve_base: string }>> {
  const r = await runAsSession((ctx, caller) => claimVanity(ctx, caller.account, { sub: check(text, sub) }));
  revalidatePath("/dashboard");
  return r;
}
