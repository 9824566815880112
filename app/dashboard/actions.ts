"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { setAccess } from "@/lib/drops/access";
import { mintKey, revokeApiKey } from "@/lib/auth/keys";
import { claimDrop, deleteDrop } from "@/lib/drops/manage";
import { rollbackToVersion } from "@/lib/drops/versions";
import { startCheckout, openPortal } from "@/lib/billing/checkout";
import { claimVanity } from "@/lib/vanity";
import { createWebhook, removeWebhook } from "@/lib/webhooks/manage";
import { ApiError } from "@/lib/errors";
import { claimBodySchema, mintKeyBodySchema, rollbackBodySchema } from "@/lib/schemas";

// Server actions of the dashboard: each one checks its arguments with zod (a server action is
// a public endpoint; anything can arrive) and calls the same lib/ service as its API route.

function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The input");
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

/** What the drop page's access form shows after a save. */
export interface AccessFormState {
  mode: "public" | "password";
  saved: boolean;
  failure: Extract<ActionResult<unknown>, { ok: false }> | null;
  /** Counts the saves tried, so the form can tell one answer from the next. */
  round: number;
}

// The drop page's access form (a plain form: it works before the page's script runs).
export async function accessAction(prev: AccessFormState, form: FormData): Promise<AccessFormState> {
  const slug = form.get("slug");
  const mode = form.get("mode");
  const password = form.get("password");
  const r = await runAsSession((ctx, caller) =>
    setAccess(ctx, caller.account, check(text, slug), mode === "password" ? { mode, password: typeof password === "string" ? password : undefined } : { mode }),
  );
  if (typeof slug === "string") revalidatePath(`/dashboard/drops/${slug}`);
  const round = prev.round + 1;
  return r.ok ? { mode: r.data.mode, saved: true, failure: null, round } : { mode: prev.mode, saved: false, failure: r, round };
}

export async function addWebhookAction(url: unknown, events: unknown): Promise<ActionResult<{ id: string; secret: string }>> {
  // createWebhook checks the body with the POST /webhooks schema.
  const r = await runAsSession(async (ctx, caller) => {
    const w = await createWebhook(ctx, caller.account, { url, events });
    return { id: w.id, secret: w.secret };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function removeWebhookAction(id: unknown): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession((ctx, caller) => removeWebhook(ctx, caller.account, check(text, id)));
  revalidatePath("/dashboard");
  return r;
}
