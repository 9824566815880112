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
import {
  claimBodySchema,
  mintKeyBodySchema,
  rollbackBodySchema,
  type AccessMode,
  type DomainInfo,
} from "@/lib/schemas";
import { actingSlug, personCaller } from "@/lib/teams/acting";
import { check, text } from "./check";
import { createDomain, deleteDomain, listDomains, verifyDomain } from "@/lib/domains/manage";

// Server actions of the dashboard: each one checks its arguments with zod (a server action is
// a public endpoint; anything can arrive) and calls the same lib/ service as its API route.

export async function deleteDropAction(slug: unknown): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession("DELETE /drops/{slug}", (ctx, caller) =>
    deleteDrop(ctx, caller.account, check(text, slug)),
  );
  revalidatePath("/dashboard");
  return r;
}

export async function rollbackAction(slug: unknown, version: unknown): Promise<ActionResult<{ live_version: number }>> {
  const r = await runAsSession("POST /drops/{slug}/rollback", async (ctx, caller) => {
    const s = check(text, slug);
    const body = check(rollbackBodySchema, { version });
    return { live_version: (await rollbackToVersion(ctx, caller.account, s, body.version)).live_version };
  });
  if (r.ok) revalidatePath(`/dashboard/drops/${String(slug)}`);
  return r;
}

export async function mintKeyAction(note: unknown): Promise<ActionResult<{ apiKey: string; keyId: string }>> {
  // Acting as a team: a team key carrying the person's role (POST /keys {note, team}).
  const r = await runAsSession("POST /keys", async (ctx, caller) => {
    const body = check(mintKeyBodySchema, { note });
    const k = await mintKey(ctx, personCaller(caller), body.note, await actingSlug(ctx, caller));
    return { apiKey: k.apiKey, keyId: k.keyId };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function revokeKeyAction(keyId: unknown): Promise<ActionResult<{ revoked: string }>> {
  const r = await runAsSession("DELETE /keys/{id}", (ctx, caller) =>
    revokeApiKey(ctx, personCaller(caller), check(text, keyId)),
  );
  revalidatePath("/dashboard");
  return r;
}

export async function claimAction(
  slug: unknown,
  claimToken: unknown,
): Promise<ActionResult<{ slug: string; url: string }>> {
  const r = await runAsSession("POST /claim", async (ctx, caller) => {
    const c = await claimDrop(ctx, caller.account, check(claimBodySchema, { slug, claim_token: claimToken }));
    return { slug: c.slug, url: c.url };
  });
  revalidatePath("/dashboard");
  return r;
}

// Checkout and the portal are a person's own (their gate refuses a session acting as a team): a
// team's plan is its billing owner's subscription.
export async function checkoutAction(plan: unknown): Promise<ActionResult<{ url: string }>> {
  return runAsSession("POST /billing/checkout", async (ctx, caller) => {
    return { url: (await startCheckout(ctx, caller.account, check(z.enum(["pro", "team"]), plan))).url };
  });
}

export async function portalAction(): Promise<ActionResult<{ url: string }>> {
  return runAsSession("POST /billing/portal", async (ctx, caller) => {
    return { url: (await openPortal(ctx, caller.account)).url };
  });
}

export async function vanityAction(sub: unknown): Promise<ActionResult<{ sub: string; serve_base: string }>> {
  const r = await runAsSession("POST /vanity", (ctx, caller) =>
    claimVanity(ctx, caller.account, { sub: check(text, sub) }),
  );
  revalidatePath("/dashboard");
  return r;
}

/** What the drop page's access form shows after a save. */
export interface AccessFormState {
  mode: AccessMode;
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
  const r = await runAsSession("PUT /drops/{slug}/access", (ctx, caller) =>
    setAccess(
      ctx,
      caller.account,
      check(text, slug),
      mode === "password" ? { mode, password: typeof password === "string" ? password : undefined } : { mode },
    ),
  );
  if (typeof slug === "string") revalidatePath(`/dashboard/drops/${slug}`);
  const round = prev.round + 1;
  return r.ok
    ? { mode: r.data.mode, saved: true, failure: null, round }
    : { mode: prev.mode, saved: false, failure: r, round };
}

export async function addWebhookAction(
  url: unknown,
  events: unknown,
): Promise<ActionResult<{ id: string; secret: string }>> {
  // createWebhook checks the body with the POST /webhooks schema.
  const r = await runAsSession("POST /webhooks", async (ctx, caller) => {
    const w = await createWebhook(ctx, caller.account, { url, events });
    return { id: w.id, secret: w.secret };
  });
  revalidatePath("/dashboard");
  return r;
}

export async function removeWebhookAction(id: unknown): Promise<ActionResult<{ deleted: string }>> {
  const r = await runAsSession("DELETE /webhooks/{id}", (ctx, caller) =>
    removeWebhook(ctx, caller.account, check(text, id)),
  );
  revalidatePath("/dashboard");
  return r;
}

/** What the drop page's custom-domains card shows after an action. */
export interface DomainsFormState {
  domains: DomainInfo[];
  /** What the last action did, for the status line. */
  message: string;
  failure: Extract<ActionResult<unknown>, { ok: false }> | null;
  round: number;
}

// The drop page's custom domains: add one for the drop, check its DNS, remove it (plain forms).
export async function domainsAction(prev: DomainsFormState, form: FormData): Promise<DomainsFormState> {
  const slug = check(text, form.get("slug"));
  const intent = form.get("intent");
  const hostname = form.get("hostname");
  const round = prev.round + 1;
  const route =
    intent === "verify"
      ? "POST /domains/{hostname}/verify"
      : intent === "remove"
        ? "DELETE /domains/{hostname}"
        : "POST /domains";
  const r = await runAsSession(route, async (ctx, caller) => {
    let message: string;
    if (intent === "add") {
      const d = await createDomain(ctx, caller.account, { hostname, slug });
      message = `Added ${d.hostname}: publish its two DNS records, then check DNS.`;
    } else if (intent === "verify") {
      const d = await verifyDomain(ctx, caller.account, check(text, hostname));
      const check0 = d.checks[0];
      message =
        d.status === "active"
          ? `${d.hostname} is active: this drop is served there.`
          : `${d.hostname} is still pending: ${check0?.error ? `the look-up failed (${check0.error})` : check0?.found.length ? "its TXT record holds another value" : "no TXT record found yet"}. DNS changes can take a few minutes.`;
    } else if (intent === "remove") {
      message = `Removed ${(await deleteDomain(ctx, caller.account, check(text, hostname))).deleted}.`;
    } else {
      throw new ApiError("invalid_request", "Unknown action.");
    }
    const all = await listDomains(ctx, caller.account);
    return { message, domains: all.domains.filter((d) => d.slug === slug) };
  });
  revalidatePath(`/dashboard/drops/${slug}`);
  return r.ok
    ? { domains: r.data.domains, message: r.data.message, failure: null, round }
    : { ...prev, message: "", failure: r, round };
}
