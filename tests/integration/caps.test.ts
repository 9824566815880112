import { describe, expect, it } from "vitest";
import { and, eq, isNull } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as keysPOST } from "@/app/keys/route";
import { POST as claimPOST } from "@/app/claim/route";
import { insertKey } from "@/lib/db/accounts";
import { countOwnedDrops, insertDropWithFiles } from "@/lib/db/queries";
import { apiKeys, drops } from "@/lib/db/schema";
import { newApiKey } from "@/lib/auth/keys";
import { newId, newSlug } from "@/lib/ids";
import { limits } from "@/lib/plans";
import { apiRequest, freshLimiter } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { oidcSuite } from "../support/oidc";

// Caps hold under parallel requests: they are checked under the account's row lock in the same
// transaction as the insert (or claim), not counted first and inserted later. On the hosted
// project these run against a real PostgreSQL through a connection pool.

const { t, oidc } = oidcSuite({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000" }, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;

async function liveKeys(accountId: string): Promise<number> {
  return (
    await t.ctx.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
  ).length;
}

/** Gives an account `n` empty drops directly through the queries. */
async function fillDrops(ownerId: string, n: number): Promise<void> {
  const now = new Date(t.clock.now);
  for (let i = 0; i < n; i++) {
    await insertDropWithFiles(
      t.ctx.db,
      { id: newId(), slug: newSlug(), ownerId, fileCount: 0, totalBytes: 0, createdAt: now, updatedAt: now },
      [],
    );
  }
}

describe("caps under concurrency", () => {
  it("found: 5 parallel POST /keys at 24 of 25 live keys leave exactly 25", async () => {
    const token = await oidc.mintIdToken({ sub: `racer-${newId()}`, iat: new Date(t.clock.now) });
    const first = await keysPOST(apiRequest("/keys", { method: "POST", headers: bearer(token) }), noParams);
    expect(first.status).toBe(201);
    const { accountId } = (await first.json()) as { accountId: string };
    const max = limits.free.maxKeys;
    for (let i = 1; i < max - 1; i++) {
      const k = newApiKey();
      await insertKey(t.ctx.db, {
        id: k.keyId,
        accountId,
        prefix: k.prefix,
        note: "",
        createdAt: new Date(t.clock.now),
      });
    }
    expect(await liveKeys(accountId)).toBe(max - 1);
    await freshLimiter(t); // the first mint used one of the 5 a minute
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        keysPOST(apiRequest("/keys", { method: "POST", headers: bearer(token) }), noParams),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400]);
    expect(await liveKeys(accountId)).toBe(max);
  });

  it("found: 6 parallel deploys of a free account at 99 of 100 drops end at exactly 100, with no orphaned bytes", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const max = limits.free.maxDrops!;
    await fillDrops(a.account.id, max - 1);
    const storedBefore = (await t.ctx.storage.list("")).length;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        deployPOST(
          apiRequest("/deploy", {
            method: "POST",
            body: `<p>${i}</p>`,
            headers: { ...bearer(a.apiKey), "content-type": "text/html" },
            ip: `192.0.2.${++ip % 250}`,
          }),
          noParams,
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402]);
    expect(await countOwnedDrops(t.ctx.db, a.account.id)).toBe(max);
    // One new drop's one file; the refused deploys' bytes are gone.
    expect((await t.ctx.storage.list("")).length).toBe(storedBefore + 1);
  });

  it("parallel claims into an account one drop below its cap: exactly one succeeds", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const max = limits.free.maxDrops!;
    await fillDrops(a.account.id, max - 1);
    const anon = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const res = await deployPOST(
          apiRequest("/deploy", {
            method: "POST",
            body: `<p>anon ${i}</p>`,
            headers: { "content-type": "text/html" },
            ip: `198.18.0.${++ip % 250}`,
          }),
          noParams,
        );
        expect(res.status).toBe(200);
        return (await res.json()) as { slug: string; claim_token: string };
      }),
    );
    const results = await Promise.all(
      anon.map((d) =>
        claimPOST(
          apiRequest("/claim", {
            method: "POST",
            body: JSON.stringify({ slug: d.slug, claim_token: d.claim_token }),
            headers: bearer(a.apiKey),
            ip: `198.19.0.${++ip % 250}`,
          }),
          noParams,
        ),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await countOwnedDrops(t.ctx.db, a.account.id)).toBe(max);
    const stillAnonymous = await Promise.all(
      anon.map(async (d) => (await t.ctx.db.select().from(drops).where(eq(drops.slug, d.slug)))[0]?.ownerId ?? null),
    );
    expect(stillAnonymous.filter((o) => o === null)).toHaveLength(3);
  });
});
