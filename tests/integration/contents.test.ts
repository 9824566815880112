import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { DELETE as dropDELETE } from "@/app/drops/[slug]/route";
import { serveGET } from "../support/serve";
import { findDropBySlug } from "@/lib/db/queries";
import { accountScope, anonymousDropScope, contentKey } from "@/lib/deploy/contents";
import { sha256Hex } from "@/lib/ids";
import type { Storage } from "@/lib/storage/types";
import { suiteContext, apiRequest, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// Content-addressed bytes: one stored object per hash within an account; redeploys store only
// what changed; deletes purge only what no other drop uses; a purge racing a deploy of the same
// content never leaves a served file without bytes.

let ip = 0;
const noParams = { params: Promise.resolve({}) };

const t = suiteContext({}, { freshLimiter: true });

async function deployJson(files: Record<string, string>, query = "", headers: Record<string, string> = {}) {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
      ip: `198.51.100.${++ip % 250}`,
    }),
    noParams,
  );
  const body = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status: 200 });
  return body as { slug: string };
}

async function served(slug: string, path: string): Promise<{ status: number; text: string }> {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${path}`));
  return { status: res.status, text: await res.text() };
}

/** Wraps the context's storage with hooks; returns a restore function. */
function hookStorage(hooks: Partial<Pick<Storage, "put" | "delete">>): { restore: () => void; puts: string[] } {
  const storage = t.ctx.storage;
  const puts: string[] = [];
  t.ctx.storage = Object.assign(Object.create(Object.getPrototypeOf(storage) as object) as Storage, storage, {
    put: async (key: string, bytes: Uint8Array, type: string) => {
      puts.push(key);
      return hooks.put ? hooks.put(key, bytes, type) : storage.put(key, bytes, type);
    },
    delete: async (ref: string) => (hooks.delete ? hooks.delete(ref) : storage.delete(ref)),
  });
  return { restore: () => (t.ctx.storage = storage), puts };
}

function site(n: number, changed: Record<string, string> = {}): Record<string, string> {
  const files: Record<string, string> = { "index.html": "<h1>home</h1>" };
  for (let i = 0; i < n - 1; i++) files[`page-${i}.html`] = `<p>page ${i}</p>`;
  return { ...files, ...changed };
}

describe("content-addressed storage", () => {
  it("a named redeploy with 3 changed files stores exactly 3 contents and serves the new ones", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const first = await deployJson(site(60), "?name=docs", bearer(pro.apiKey));
    const hook = hookStorage({});
    try {
      const changed = { "page-1.html": "<p>new 1</p>", "page-2.html": "<p>new 2</p>", "page-3.html": "<p>new 3</p>" };
      const second = await deployJson(site(60, changed), "?name=docs", bearer(pro.apiKey));
      expect(second.slug).toBe(first.slug);
      expect(hook.puts.length).toBe(3);
    } finally {
      hook.restore();
    }
    expect(await served(first.slug, "/page-2.html")).toEqual({ status: 200, text: "<p>new 2</p>" });
    expect(await served(first.slug, "/page-9.html")).toEqual({ status: 200, text: "<p>page 9</p>" });
    // The three replaced contents stay while version 1 is retained (for a rollback): 63 for the account.
    expect(await t.ctx.storage.list(`c/${accountScope(pro.account.id)}/`)).toHaveLength(63);
  });

  it("identical files are stored once per account, never shared across accounts or anonymous drops", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const b = await accountWithKey(t.ctx, "free");
    const same = { "index.html": "<p>same bytes</p>", "copy.html": "<p>same bytes</p>" };
    await deployJson(same, "", bearer(a.apiKey));
    await deployJson(same, "", bearer(a.apiKey));
    await deployJson(same, "", bearer(b.apiKey));
    const anon1 = await deployJson(same);
    const anon2 = await deployJson(same);
    const sha = sha256Hex(new TextEncoder().encode("<p>same bytes</p>"));
    expect(await t.ctx.storage.list(`c/${accountScope(a.account.id)}/`)).toEqual([
      contentKey(accountScope(a.account.id), sha),
    ]);
    expect(await t.ctx.storage.list(`c/${accountScope(b.account.id)}/`)).toEqual([
      contentKey(accountScope(b.account.id), sha),
    ]);
    for (const d of [anon1, anon2]) {
      const id = (await findDropBySlug(t.ctx.db, d.slug))!.id;
      expect(await t.ctx.storage.list(`c/${anonymousDropScope(id)}/`)).toEqual([
        contentKey(anonymousDropScope(id), sha),
      ]);
    }
  });

  it("deleting one of two drops that share a content keeps the shared bytes and purges the rest", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const scope = accountScope(a.account.id);
    const one = await deployJson({ "index.html": "shared", "only-one.txt": "one" }, "", bearer(a.apiKey));
    const two = await deployJson({ "index.html": "shared", "only-two.txt": "two" }, "", bearer(a.apiKey));
    const key = (s: string) => contentKey(scope, sha256Hex(new TextEncoder().encode(s)));
    expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([key("shared"), key("one"), key("two")].sort());
    const del = await dropDELETE(apiRequest(`/drops/${one.slug}`, { method: "DELETE", headers: bearer(a.apiKey) }), {
      params: Promise.resolve({ slug: one.slug }),
    });
    expect(del.status).toBe(200);
    expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([key("shared"), key("two")].sort());
    expect(await served(two.slug, "/")).toEqual({ status: 200, text: "shared" });
  });

  it("a deploy that starts while a purge removes the same content stores it anew: no served file lacks bytes", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const doomed = await deployJson({ "index.html": "raced" }, "", bearer(a.apiKey));
    let racing: Promise<{ slug: string }> | undefined;
    const storage = t.ctx.storage;
    const hook = hookStorage({
      delete: async (ref) => {
        // The purge holds the content's row lock here; the deploy's pin waits for it to commit.
        racing ??= deployJson({ "index.html": "raced" }, "", bearer(a.apiKey));
        await storage.delete(ref);
      },
    });
    try {
      const del = await dropDELETE(
        apiRequest(`/drops/${doomed.slug}`, { method: "DELETE", headers: bearer(a.apiKey) }),
        { params: Promise.resolve({ slug: doomed.slug }) },
      );
      expect(del.status).toBe(200);
      expect(racing).toBeDefined();
      const fresh = await racing!;
      expect(await served(fresh.slug, "/")).toEqual({ status: 200, text: "raced" });
    } finally {
      hook.restore();
    }
  });

  it("a purge that runs while a deploy has the same content pinned leaves it alone", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const old = await deployJson({ "index.html": "kept" }, "", bearer(a.apiKey));
    let deleted: number | undefined;
    const storage = t.ctx.storage;
    const hook = hookStorage({
      put: async (key, bytes, type) => {
        // The deploy has pinned "kept" (already stored) and now stores "new": delete the old drop.
        deleted ??= (
          await dropDELETE(apiRequest(`/drops/${old.slug}`, { method: "DELETE", headers: bearer(a.apiKey) }), {
            params: Promise.resolve({ slug: old.slug }),
          })
        ).status;
        return storage.put(key, bytes, type);
      },
    });
    try {
      const fresh = await deployJson({ "index.html": "kept", "new.txt": "new" }, "", bearer(a.apiKey));
      expect(deleted).toBe(200);
      expect(await served(fresh.slug, "/")).toEqual({ status: 200, text: "kept" });
    } finally {
      hook.restore();
    }
  });
});
