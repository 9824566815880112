import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as linksRoute from "@/app/drops/[slug]/share-links/route";
import * as linkRoute from "@/app/drops/[slug]/share-links/[id]/route";
import { drops } from "@/lib/db/schema";
import { eq } from "drizzle-orm";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, suiteContext } from "../support/context";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { cookiePair, MARKER, putAccess, sharedDrop, visit } from "../support/sharing";

// Share links (DESIGN "Sharing by identity"): POST/GET/DELETE /drops/{slug}/share-links, the link
// on the drop host, its host-only cookie, and its end by DELETE or by a change of access mode.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@example.test" }), { freshLimiter: true });

const params = (slug: string, id?: string) => ({ params: Promise.resolve(id ? { slug, id } : { slug }) });

async function mint(apiKey: string, slug: string, body: unknown) {
  const res = await linksRoute.POST(
    apiRequest(`/drops/${slug}/share-links`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...bearer(apiKey) },
    }),
    params(slug),
  );
  return {
    status: res.status,
    json: (await res.json()) as { id: string; url: string; expires_at: string; code: string },
  };
}

async function list(apiKey: string, slug: string) {
  const res = await linksRoute.GET(apiRequest(`/drops/${slug}/share-links`, { headers: bearer(apiKey) }), params(slug));
  return (await res.json()) as { share_links: { id: string; expires_at: string; created_at: string }[] };
}

async function revoke(apiKey: string, slug: string, id: string): Promise<number> {
  const res = await linkRoute.DELETE(
    apiRequest(`/drops/${slug}/share-links/${id}`, { method: "DELETE", headers: bearer(apiKey) }),
    params(slug, id) as never,
  );
  return res.status;
}

const PASSWORD = "a long passphrase here";

async function passwordDrop() {
  const d = await sharedDrop(t);
  expect((await putAccess(d.owner.apiKey, d.slug, { mode: "password", password: PASSWORD })).status).toBe(200);
  return d;
}

/** Opens a share link's URL on its host: the visit and the path (with query) it named. */
async function open(url: string) {
  const u = new URL(url);
  const label = u.hostname.split(".")[0]!;
  return { label, v: await visit(t, label, u.pathname + u.search) };
}

describe("share links", () => {
  it("a link on the drop host sets a host-only cookie that opens a password drop, listed until it is revoked", async () => {
    const { owner, slug } = await passwordDrop();
    const made = await mint(owner.apiKey, slug, { expires_in_hours: 48 });
    expect(made.status).toBe(201);
    expect(made.json.id).toMatch(/^shl_/);
    expect(made.json.url).toMatch(
      new RegExp(`^http://${slug}\\.drops\\.localhost:3000/\\.well-known/dropsite/share\\?token=sh_`),
    );
    expect(Date.parse(made.json.expires_at)).toBe(t.ctx.now() + 48 * 3_600_000);
    const token = new URL(made.json.url).searchParams.get("token")!;
    expect(JSON.stringify(await t.ctx.db.execute("select * from share_links"))).not.toContain(token);
    const { v } = await open(made.json.url);
    expect(v.status).toBe(302);
    expect(v.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax/);
    expect(v.headers.get("set-cookie")).not.toMatch(/domain=/i);
    const cookie = cookiePair(v);
    const page = await visit(t, slug, "/about", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(MARKER);
    // The cookie is for the host the link was made for only.
    expect((await visit(t, `${slug}---v1`, "/about", { headers: { cookie } })).status).toBe(401);
    // And the link itself opens nothing on another host of the drop.
    const u = new URL(made.json.url);
    const elsewhere = await visit(t, `${slug}---v1`, u.pathname + u.search);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("set-cookie")).toBeNull();
    expect((await list(owner.apiKey, slug)).share_links).toEqual([
      { id: made.json.id, expires_at: made.json.expires_at, created_at: new Date(t.ctx.now()).toISOString() },
    ]);
    expect(await revoke(owner.apiKey, slug, made.json.id)).toBe(204);
    expect((await visit(t, slug, "/about", { headers: { cookie } })).status).toBe(401);
    expect((await open(made.json.url)).v.status).toBe(401);
    expect((await list(owner.apiKey, slug)).share_links).toEqual([]);
    expect(await revoke(owner.apiKey, slug, made.json.id)).toBe(404);
  });

  it("opens an emails drop too; any change of access mode revokes every link and ends its cookies", async () => {
    const { owner, slug } = await sharedDrop(t, ["ana@x.org"]);
    const made = await mint(owner.apiKey, slug, { expires_in_hours: 1 });
    const cookie = cookiePair((await open(made.json.url)).v);
    expect((await visit(t, slug, "/", { headers: { cookie } })).status).toBe(200);
    // A new list is no change of mode: the link stays.
    await putAccess(owner.apiKey, slug, { mode: "emails", allow: ["bob@x.org"] });
    expect((await visit(t, slug, "/", { headers: { cookie } })).status).toBe(200);
    await putAccess(owner.apiKey, slug, { mode: "password", password: PASSWORD });
    expect((await visit(t, slug, "/", { headers: { cookie } })).status).toBe(401);
    expect((await list(owner.apiKey, slug)).share_links).toEqual([]);
    expect((await open(made.json.url)).v.status).toBe(401);
  });

  it("expires with its lifetime", async () => {
    const { owner, slug } = await passwordDrop();
    const made = await mint(owner.apiKey, slug, { expires_in_hours: 1 });
    const cookie = cookiePair((await open(made.json.url)).v);
    t.clock.advance(3600);
    expect((await visit(t, slug, "/", { headers: { cookie } })).status).toBe(401);
    expect((await open(made.json.url)).v.status).toBe(401);
  });

  it("refuses a bad lifetime, a public drop, another account's drop and a disabled drop, making nothing", async () => {
    const { owner, slug } = await passwordDrop();
    for (const body of [
      {},
      { expires_in_hours: 0 },
      { expires_in_hours: 721 },
      { expires_in_hours: 1.5 },
      { expires_in_hours: "48" },
      { expires_in_hours: 4, x: 1 },
    ]) {
      const r = await mint(owner.apiKey, slug, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe("invalid_request");
    }
    const pub = await sharedDrop(t);
    const r = await mint(pub.owner.apiKey, pub.slug, { expires_in_hours: 4 });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("invalid_request");
    const other = await accountWithKey(t.ctx);
    expect((await mint(other.apiKey, slug, { expires_in_hours: 4 })).status).toBe(404);
    await t.ctx.db
      .update(drops)
      .set({ disabledAt: new Date(t.ctx.now()), disabledReason: "spam" })
      .where(eq(drops.slug, slug));
    const disabled = await mint(owner.apiKey, slug, { expires_in_hours: 4 });
    expect(disabled.status).toBe(403);
    expect(disabled.json.code).toBe("forbidden");
    expect((await list(owner.apiKey, slug)).share_links).toEqual([]);
  });
});
