import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { GET as limitsGET } from "@/app/limits/route";
import { limits } from "@/lib/plans";
import { contents, drops, files, uploadGrants } from "@/lib/db/schema";
import { markContentsStored, pinContents, unpinContents } from "@/lib/db/contents";
import { sha256Hex } from "@/lib/ids";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { deployFiles as deploy } from "../support/deploy";

// Bounds of a drop that hold on every path and under parallel requests (issue 23). On the hosted
// project these run against a real PostgreSQL server through a connection pool.

const t = suiteContext({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000" }, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };

function append(slug: string, filesMap: Record<string, unknown>, headers: Record<string, string>) {
  return appendPOST(
    apiRequest(`/deploy/${slug}`, {
      method: "POST",
      body: JSON.stringify({ files: filesMap }),
      headers: { "content-type": "application/json", ...headers },
    }),
    { params: Promise.resolve({ slug }) },
  );
}

/** Every row and object a refused request could have touched. */
async function snapshot() {
  const db = t.ctx.db;
  return {
    drops: (
      await db.select({ id: drops.id, fileCount: drops.fileCount, totalBytes: drops.totalBytes }).from(drops)
    ).sort((a, b) => (a.id < b.id ? -1 : 1)),
    files: (await db.select({ dropId: files.dropId }).from(files)).length,
    contents: (await db.select().from(contents))
      .map((c) => `${c.scope}/${c.sha256} ${c.size} ${c.storageRef} ${c.pins}`)
      .sort(),
    grants: (await db.select().from(uploadGrants)).length,
    stored: (await t.ctx.storage.list("")).sort(),
  };
}

describe("parallel appends at the files-per-drop cap", () => {
  it("found: 4 parallel POST /deploy/{slug} sharing contents in different orders at the cap: one 200 per round, the rest 413, never 503", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const res = await deploy({ "index.html": "<h1>base</h1>" }, bearer(a.apiKey));
    const { slug } = (await res.json()) as { slug: string };
    const n = 50;
    for (let round = 0; round < 6; round++) {
      // The drop's count says there is room for one request's files (10,000 rows are not needed to test the lock).
      await t.ctx.db
        .update(drops)
        .set({ fileCount: 10_000 - n })
        .where(eq(drops.slug, slug));
      const answers = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          // The same 50 contents in each request, each in its own order: their rows are locked by
          // every request (deadlocked on PostgreSQL before the locks were taken in hash order).
          const entries = Array.from(
            { length: n },
            (_, k) => [`r${round}/q${i}/f${k}.txt`, `shared ${(k + i * 7) % n}`] as const,
          );
          const r = await append(slug, Object.fromEntries(i % 2 ? entries.reverse() : entries), bearer(a.apiKey));
          return { status: r.status, code: ((await r.json()) as { code?: string }).code };
        }),
      );
      expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
      expect(answers.filter((x) => x.status !== 200)).toEqual(
        Array(3).fill({ status: 413, code: "payload_too_large" }),
      );
      const [row] = await t.ctx.db.select().from(drops).where(eq(drops.slug, slug));
      expect(row?.fileCount).toBe(10_000);
    }
    // The refused requests left no pin behind.
    expect((await t.ctx.db.select().from(contents)).filter((c) => c.pins !== 0)).toEqual([]);
  });
});

describe("content rows are locked in one order", () => {
  it("pins, unpins and stores of overlapping contents in opposite orders run in parallel without a deadlock", async () => {
    const scope = `a-order-${Date.now()}`;
    const keys = Array.from({ length: 300 }, (_, i) => ({
      sha256: sha256Hex(new TextEncoder().encode(`k${i}`)),
      size: i,
    }));
    const backwards = [...keys].reverse();
    const now = new Date(t.clock.now);
    // Two pins first, so the two unpins of a round never meet a count of 0 (unpins stop there).
    await pinContents(t.ctx.db, scope, keys, now);
    await pinContents(t.ctx.db, scope, keys, now);
    for (let round = 0; round < 6; round++) {
      await Promise.all([
        pinContents(t.ctx.db, scope, keys, now),
        pinContents(t.ctx.db, scope, backwards, now),
        unpinContents(
          t.ctx.db,
          scope,
          backwards.map((k) => k.sha256),
        ),
        markContentsStored(
          t.ctx.db,
          scope,
          backwards.map((k) => ({ sha256: k.sha256, storageRef: `c/${scope}/${k.sha256}`, size: k.size })),
        ),
        unpinContents(
          t.ctx.db,
          scope,
          keys.map((k) => k.sha256),
        ),
      ]);
    }
    const rows = await t.ctx.db.select().from(contents).where(eq(contents.scope, scope));
    expect(rows.map((r) => r.pins)).toEqual(Array(300).fill(2));
  });
});

describe("a drop's total bytes are bounded per plan, on every path that writes files", () => {
  const MB = 1024 * 1024;
  // Five contents of 22 MB each by reference: 110 MB, past what a free or anonymous drop holds.
  const bigRefs = Object.fromEntries(
    Array.from({ length: 5 }, (_, i) => [
      `part${i}.bin`,
      { sha256: sha256Hex(new TextEncoder().encode(`big ${i}`)), size: 22 * MB },
    ]),
  );

  async function refusedWithoutTrace(run: () => Promise<Response>, status: number, code: string) {
    const before = await snapshot();
    const res = await run();
    const body = (await res.json()) as { code: string; error: string; upgrade_url?: string };
    expect({ status: res.status, code: body.code }).toEqual({ status, code });
    expect(await snapshot()).toEqual(before);
    return body;
  }

  it("the plan table says 100 MB for anonymous and free, 400 MB for paid, and GET /limits reports it", async () => {
    expect([limits.anonymous.dropBytes, limits.free.dropBytes, limits.pro.dropBytes, limits.team.dropBytes]).toEqual([
      100 * MB,
      100 * MB,
      400 * MB,
      400 * MB,
    ]);
    const anon = (await (await limitsGET(apiRequest("/limits"), noParams)).json()) as {
      limits: { drop_bytes: number; held_bytes: number };
    };
    expect(anon.limits).toMatchObject({ drop_bytes: 100 * MB, held_bytes: limits.anonymous.heldBytes });
    const pro = await accountWithKey(t.ctx, "pro");
    const paid = (await (await limitsGET(apiRequest("/limits", { headers: bearer(pro.apiKey) }), noParams)).json()) as {
      limits: { drop_bytes: number };
    };
    expect(paid.limits.drop_bytes).toBe(400 * MB);
  });

  it("found: a deploy by reference past 100 MB answers 413 payload_too_large naming the limit (anonymous and free)", async () => {
    const anon = await refusedWithoutTrace(() => deploy(bigRefs), 413, "payload_too_large");
    expect(anon.error).toContain("100 MB");
    expect(anon.upgrade_url).toBeDefined();
    const free = await accountWithKey(t.ctx, "free");
    await refusedWithoutTrace(() => deploy(bigRefs, bearer(free.apiKey)), 413, "payload_too_large");
  });

  it("a preflight for more than a drop may hold is 413 and holds nothing", async () => {
    await refusedWithoutTrace(
      () =>
        preflightPOST(
          apiRequest("/deploy/preflight", {
            method: "POST",
            body: JSON.stringify({ files: bigRefs }),
            headers: { "content-type": "application/json" },
          }),
          noParams,
        ),
      413,
      "payload_too_large",
    );
  });

  it("an append past 400 MB in total is 413; up to it is fine", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const res = await deploy({ "index.html": "<h1>base</h1>" }, bearer(a.apiKey));
    const { slug } = (await res.json()) as { slug: string };
    // The drop's row says it holds all but 10 bytes of the paid total.
    await t.ctx.db
      .update(drops)
      .set({ totalBytes: 400 * MB - 10 })
      .where(eq(drops.slug, slug));
    const body = await refusedWithoutTrace(
      () => append(slug, { "eleven.txt": "01234567890" }, bearer(a.apiKey)),
      413,
      "payload_too_large",
    );
    expect(body.error).toContain("400 MB");
    expect((await append(slug, { "ten.txt": "0123456789" }, bearer(a.apiKey))).status).toBe(200);
    const [row] = await t.ctx.db.select().from(drops).where(eq(drops.slug, slug));
    expect(row?.totalBytes).toBe(400 * MB);
  });
});
