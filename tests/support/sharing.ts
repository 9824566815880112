import { expect } from "vitest";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import type { Caller } from "@/lib/auth/caller";
import { createDrop } from "@/lib/deploy/store";
import { serveRequest } from "@/lib/serve";
import { SIGNIN_PATH } from "@/lib/serve/emails";
import { accountWithKey, bearer } from "./accounts";
import { apiRequest, dropRequest, type TestContext } from "./context";
import type { SmtpRecorder } from "./smtp";

// Helpers of the sharing suites (emails-only drops, viewers, share links): a drop with a marker
// on every page, the access route, visits to drop hosts, the ask form, and the link a mail carries.

export const MARKER = "SHARED-MARKER-51c9e2";
const enc = (s: string) => new TextEncoder().encode(s);
export const SITE = [
  { path: "index.html", bytes: enc(`<!doctype html><title>home</title><h1>${MARKER} home</h1>`) },
  { path: "about.html", bytes: enc(`<!doctype html><title>about</title><p>${MARKER} about</p>`) },
  { path: "style.css", bytes: enc(`/* ${MARKER} */ body{color:red}`) },
];

export interface Visit {
  status: number;
  headers: Headers;
  text: string;
}

export const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `test:${account?.id}`,
});

export async function putAccess(
  apiKey: string,
  slug: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await accessRoute.PUT(
    apiRequest(`/drops/${slug}/access`, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...bearer(apiKey) },
    }),
    { params: Promise.resolve({ slug }) },
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** An owned drop (free plan unless said) with SITE's files, in emails mode for `allow` when given. */
export async function sharedDrop(t: TestContext, allow?: string[]) {
  const owner = await accountWithKey(t.ctx, "free");
  const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
  if (allow) expect((await putAccess(owner.apiKey, d.slug, { mode: "emails", allow })).status).toBe(200);
  return { owner, slug: d.slug };
}

export async function visit(t: TestContext, label: string, path: string, init: RequestInit = {}): Promise<Visit> {
  const headers = new Headers(init.headers);
  headers.set("x-dropsite-socket-ip", "198.51.100.30");
  const res = await serveRequest(t.ctx, dropRequest(label, path, { ...init, headers }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Posts the ask page's form on `label`'s host. */
export function askFor(t: TestContext, label: string, email: string, path = "/"): Promise<Visit> {
  return visit(t, label, SIGNIN_PATH, {
    method: "POST",
    body: new URLSearchParams({ email, path }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** The sign-in link of a recorded mail, as path and query on its host. */
export function linkOf(mail: { text: string }): { host: string; path: string } {
  const m = /(https?):\/\/([^/\s]+)(\/\.well-known\/dropsite\/sign-in\?[^\s"<>]+)/.exec(mail.text);
  expect(m, mail.text).toBeTruthy();
  return { host: m![2]!, path: m![3]!.replace(/&amp;/g, "&") };
}

/** Asks for a link for `email` on `label` and waits for its mail. */
export async function mailedLink(t: TestContext, smtp: SmtpRecorder, label: string, email: string, path = "/") {
  const before = smtp.messages.length;
  expect((await askFor(t, label, email, path)).status).toBe(200);
  return linkOf(await smtp.waitFor(email, { after: before }));
}

/** The "name=value" pair of a Set-Cookie. */
export function cookiePair(v: Visit): string {
  const set = v.headers.get("set-cookie");
  expect(set, v.text).toBeTruthy();
  return set!.split(";")[0]!;
}
