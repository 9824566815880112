import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { anonymousCaller, type Caller } from "@/lib/auth/caller";
import type { AppContext } from "@/lib/context";
import { appendToDrop, createDrop } from "@/lib/deploy/store";
import { runCleanup } from "@/lib/drops/lifecycle";
import { claimDrop, deleteDrop } from "@/lib/drops/manage";
import { dropTag, MANIFEST_REVALIDATE_MS } from "@/lib/serve/cache";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import { accountWithKey } from "../support/accounts";
import {
  makeTestContext,
  TEST_BASE_URL,
  TEST_SERVE_DOMAIN,
  twoInstancesSuite,
  type TestContext,
} from "../support/context";
import { cdnRecorder } from "../support/cdn";

// The manifest cache and the CDN purge: every change is visible at once in the process that
// made it and recorded as a purge of the drop's tag; a second instance on the same PostgreSQL
// sees it within the revalidation window.

const cdn = cdnRecorder();
const { calls } = cdn;

const enc = (s: string) => new TextEncoder().encode(s);
const files = (m: Record<string, string>) => Object.entries(m).map(([p, c]) => ({ path: p, bytes: enc(c) }));
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `test:${account?.id}`,
});

async function visit(
  ctx: AppContext,
  label: string,
  p = "/",
): Promise<{ status: number; text: string; headers: Headers }> {
  const action = resolveHost(`${label}.${TEST_SERVE_DOMAIN}`, {
    serveDomain: TEST_SERVE_DOMAIN,
    appHost: new URL(TEST_BASE_URL).host,
  });
  const res = await serveDrop(ctx, action, { method: "GET", pathname: p, headers: new Headers() });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe("in the process that changes a drop", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext();
    cdn.install();
  });
  afterAll(async () => {
    cdn.uninstall();
    await t.close();
  });
  afterEach(() => void calls.splice(0));

  it("serving tags the response with its drop; replace and append show at once and purge the tag", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const caller = callerOf(account);
    const first = await createDrop(t.ctx, caller, { files: files({ "index.html": "v1" }), ttl: null, name: "site" });
    expect((await visit(t.ctx, first.slug)).text).toBe("v1");
    const [drop] = await t.ctx.db.query.drops.findMany({ where: (d, { eq }) => eq(d.slug, first.slug) });
    const tag = dropTag(drop!.id);
    expect(calls).toContainEqual(["addCacheTag", tag]);

    calls.splice(0);
    await createDrop(t.ctx, caller, { files: files({ "index.html": "v2" }), ttl: null, name: "site" });
    expect(calls).toEqual([["invalidateByTag", tag]]);
    expect((await visit(t.ctx, first.slug)).text).toBe("v2");

    calls.splice(0);
    expect((await visit(t.ctx, first.slug, "/extra.html")).status).toBe(404);
    await appendToDrop(t.ctx, caller, first.slug, files({ "extra.html": "more" }));
    expect(calls).toEqual([["invalidateByTag", tag]]);
    expect((await visit(t.ctx, first.slug, "/extra.html")).text).toBe("more");

    calls.splice(0);
    await deleteDrop(t.ctx, account, first.slug);
    expect(calls).toEqual([["dangerouslyDeleteByTag", tag]]);
    expect((await visit(t.ctx, first.slug)).status).toBe(404);
  });

  it("a claim shows at once (the drop is indexed again) and purges the tag", async () => {
    const { account } = await accountWithKey(t.ctx, "free");
    const anon = await createDrop(t.ctx, anonymousCaller, { files: files({ "index.html": "anon" }), ttl: 3600 });
    expect((await visit(t.ctx, anon.slug)).headers.get("x-robots-tag")).toBe("noindex");
    calls.splice(0);
    await claimDrop(t.ctx, account, { slug: anon.slug, claim_token: anon.claim_token! });
    expect(calls.map((c) => c[0])).toEqual(["invalidateByTag"]);
    expect((await visit(t.ctx, anon.slug)).headers.get("x-robots-tag")).toBeNull();
  });

  it("the cleanup job's purge of an expired drop deletes its tag at the CDN", async () => {
    const { account } = await accountWithKey(t.ctx, "free");
    const d = await createDrop(t.ctx, callerOf(account), { files: files({ "index.html": "soon" }), ttl: 60 });
    expect((await visit(t.ctx, d.slug)).status).toBe(200);
    t.clock.advance(61);
    expect((await visit(t.ctx, d.slug)).status).toBe(410);
    calls.splice(0);
    const result = await runCleanup(t.ctx);
    expect(result.slugs).toContain(d.slug);
    expect(calls.filter((c) => c[0] === "dangerouslyDeleteByTag").length).toBe(result.purged);
    expect((await visit(t.ctx, d.slug)).status).toBe(404);
  });

  it("an unknown slug is remembered as absent, and a deploy under it is still seen at once", async () => {
    const d = await createDrop(t.ctx, anonymousCaller, { files: files({ "index.html": "fresh" }), ttl: 3600 });
    expect((await visit(t.ctx, d.slug)).text).toBe("fresh");
  });
});

describe("two instances on one PostgreSQL", () => {
  const two = twoInstancesSuite();

  it("a replace and a delete made by one are served by the other within the revalidation window", async () => {
    const { account } = await accountWithKey(two.a, "pro");
    const caller = callerOf(account);
    const d = await createDrop(two.a, caller, {
      files: files({ "index.html": "one", "a.css": "a{}" }),
      ttl: null,
      name: "shared",
    });
    expect((await visit(two.b, d.slug)).text).toBe("one");
    await createDrop(two.a, caller, {
      files: files({ "index.html": "two", "b.css": "b{}" }),
      ttl: null,
      name: "shared",
    });
    expect((await visit(two.a, d.slug)).text).toBe("two");
    // Within the window b may still answer from its manifest: the replaced version is retained
    // (its bytes stay for a rollback), so b serves it whole until it revalidates.
    const early = await visit(two.b, d.slug, "/a.css");
    expect(early.text).toBe("a{}");
    two.advance(MANIFEST_REVALIDATE_MS);
    expect((await visit(two.b, d.slug)).text).toBe("two");
    expect((await visit(two.b, d.slug, "/b.css")).text).toBe("b{}");

    await deleteDrop(two.a, account, d.slug);
    two.advance(MANIFEST_REVALIDATE_MS);
    expect((await visit(two.b, d.slug)).status).toBe(404);
  });
});

describe("contents in memory", () => {
  let t: TestContext;
  // Room for four 900-byte contents (each may take a quarter of the budget at most).
  beforeAll(async () => {
    t = await makeTestContext({ SERVE_CACHE_BYTES: "3600" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("are read from storage once, kept under SERVE_CACHE_BYTES, the least recently used leaving first", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const names = ["a", "b", "c", "d", "e"];
    // Not a text type, so only the raw form is kept; distinct bytes, so five contents.
    const d = await createDrop(t.ctx, callerOf(account), {
      files: names.map((n) => ({ path: `${n}.bin`, bytes: new Uint8Array(900).fill(n.charCodeAt(0)) })),
      ttl: null,
    });
    const storage = t.ctx.storage;
    const get = storage.get.bind(storage);
    const reads: string[] = [];
    storage.get = (ref, range) => {
      reads.push(ref);
      return get(ref, range);
    };
    const readsFor = async (n: string) => {
      const before = reads.length;
      const res = await visit(t.ctx, d.slug, `/${n}.bin`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(n.repeat(900));
      return reads.length - before;
    };
    try {
      for (const n of ["a", "b", "c", "d"]) expect(await readsFor(n)).toBe(1);
      expect(await readsFor("a")).toBe(0); // kept, and now the most recently used
      expect(await readsFor("e")).toBe(1); // over the budget: b, the least recently used, leaves
      expect(await readsFor("a")).toBe(0);
      expect(await readsFor("c")).toBe(0);
      expect(await readsFor("b")).toBe(1);
    } finally {
      storage.get = get;
    }
  });
});
