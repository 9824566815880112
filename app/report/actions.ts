"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getContext } from "@/lib/context";
import { toApiError } from "@/lib/errors";
import { clientAddress } from "@/lib/ratelimit/address";
import { reportAndCheck } from "@/lib/render/reported";

// The /report form's action: the API's fields, the same service as POST /reports. It answers
// with a redirect (to the receipt, or back to the form with the error), so it works without
// JavaScript.

const field = (form: FormData, name: string): string | undefined => {
  const v = form.get(name);
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
};

export async function sendReport(form: FormData): Promise<void> {
  const input = {
    url: field(form, "url") ?? "",
    reason: field(form, "reason") ?? "",
    details: field(form, "details"),
    contact: field(form, "contact"),
  };
  let target: string;
  try {
    const ctx = await getContext();
    const { id } = await reportAndCheck(ctx, input, clientAddress({ headers: await headers() }, ctx.env));
    target = `/report?sent=${encodeURIComponent(id)}`;
  } catch (err) {
    const e = toApiError(err);
    const q = new URLSearchParams({ url: input.url, reason: input.reason, error: e.message });
    target = `/report?${q.toString()}`;
  }
  redirect(target);
}
