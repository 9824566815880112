"use server";

import { revalidatePath } from "next/cache";
import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { mintKey, revokeApiKey } from "@/lib/auth/keys";
import { claimDrop, deleteDrop } from "@/lib/drops/manage";
import { startCheckout, openPortal } from "@/lib/billing/checkout";
import { claimVanity } from "@/lib/vanity";

// Server actions of the dashboard: each one calls the same lib/ service as its API route.

export async function deleteDropAction(slug: string): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession((ctx, caller) => deleteDrop(ctx, caller.account, slug));
  revalidatePath("/dashboard");
  return r;
}

export async function mintKeyAction(note: string): Promise<ActionResult<{ apiKey: string; keyId: string }>> {
  const r = await runAsSession(async (ctx, caller) => {
    const k = await mintKey(ctx, caller, note.slice(0, 200));
    return { apiKey: k.apiKey, keyId: k.keyId };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function revokeKeyAction(keyId: string): Promise<ActionResult<{ revoked: string }>> {
  const r = await runAsSession((ctx, caller) => revokeApiKey(ctx, caller, keyId));
  revalidatePath("/dashboard");
  return r;
}

export async function claimAction(slug: string, claimToken: string): Promise<ActionResult<{ slug: string; url: string }>> {
  const r = await runAsSession(async (ctx, caller) => {
    const c = await claimDrop(ctx, caller.account, { slug, claim_token: claimToken });
    return { slug: c.slug, url: c.url };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function checkoutAction(plan: "pro" | "team"): Promise<ActionResult<{ url: string }>> {
  return runAsSession(async (ctx, caller) => ({ url: (await startCheckout(ctx, caller.account, plan)).url }));
}

export async function portalAction(): Promise<ActionResult<{ url: string }>> {
  return runAsSession(async (ctx, caller) => ({ url: (await openPortal(ctx, caller.account)).url }));
}

export async function vanityAction(sub: string): Promise<ActionResult<{ sub: string; serve_base: string }>> {
  const r = await runAsSession((ctx, caller) => claimVanity(ctx, caller.account, { sub }));
  revalidatePath("/dashboard");
  return r;
}
