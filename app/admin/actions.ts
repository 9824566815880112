"use server";

import { redirect } from "next/navigation";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { toApiError } from "@/lib/errors";
import { isOperator } from "@/lib/admin/operators";
import {
  addBlock,
  deleteDropAsOperator,
  disableDrop,
  enableDrop,
  removeBlock,
  resolveReport,
  suspendAccount,
} from "@/lib/admin/actions";
import type { AppContext } from "@/lib/context";

// The /admin page's forms: each checks that the session is an operator's, runs the same lib/admin
// action as the API (audited with the operator as actor) and redirects back with what happened,
// so every form works without JavaScript.

const text = (form: FormData, name: string): string => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

async function asOperator(run: (ctx: AppContext, actor: { id: string }) => Promise<string>) {
  let target: string;
  try {
    const caller = await sessionPerson("write");
    const ctx = await getContext();
    if (!caller || !isOperator(ctx.env, caller.account)) throw new Error("not an operator");
    target = `/admin?done=${encodeURIComponent(await run(ctx, caller.account))}`;
  } catch (err) {
    target = `/admin?error=${encodeURIComponent(toApiError(err).message)}`;
  }
  redirect(target);
}

export async function disableAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const slug = text(form, "slug");
    await disableDrop(ctx, actor, slug, {
      reason: text(form, "reason"),
      ...(text(form, "note") ? { note: text(form, "note") } : {}),
    });
    return `Disabled ${slug}.`;
  });
}

export async function enableAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const slug = text(form, "slug");
    await enableDrop(ctx, actor, slug);
    return `Enabled ${slug}.`;
  });
}

export async function deleteAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const slug = text(form, "slug");
    await deleteDropAsOperator(ctx, actor, slug);
    return `Deleted ${slug}.`;
  });
}

export async function dismissAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const r = await resolveReport(ctx, actor, text(form, "report"), { action: "dismissed" });
    return `Dismissed the reports of ${r.slug}.`;
  });
}

export async function suspendAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const r = await suspendAccount(ctx, actor, text(form, "account"), { reason: text(form, "reason") });
    return `Suspended ${r.id}.`;
  });
}

export async function blockAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const b = await addBlock(ctx, actor, { cidr: text(form, "cidr"), reason: text(form, "reason") });
    return `Blocked ${b.cidr}.`;
  });
}

export async function unblockAction(form: FormData): Promise<void> {
  await asOperator(async (ctx, actor) => {
    const b = await removeBlock(ctx, actor, text(form, "block"));
    return `Lifted the block of ${b.cidr}.`;
  });
}
