import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { disableDrop } from "@/lib/admin/actions";
import type { Caller } from "@/lib/auth/caller";
import { setPlan } from "@/lib/db/accounts";
import { findDropBySlug } from "@/lib/db/queries";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { deleteDropAlias, setDropAlias } from "@/lib/drops/aliases";
import { runCleanup } from "@/lib/drops/lifecycle";
import { deleteDrop } from "@/lib/drops/manage";
import { serveRequest } from "@/lib/serve";
import { aliasTag, dropTag, versionTag } from "@/lib/serve/cache";
import { accountWithKey } from "../support/accounts";
import { cdnRecorder, startPurgeRecorder } from "../support/cdn";
import { dropRequest, makeTestContext, type TestContext } from "../support/context";

// CDN tags of preview hosts (DESIGN round 5, "Previews" → "Caching and the long tail"): an answer
// on `<slug>---v<N>` carries the drop's tag and the version's, on `<slug>---<alias>` the alias's
// too, both as Cache-Tag (CDN_CACHE) and through Vercel's addCacheTag; so deleting, disabling or
// changing the access of the drop purges them with the drop's tag, pruning a version purges that
// version's tag, and moving or deleting an alias purges that alias's tag, neither of the last two
// touching the live host's cached answers.

let t: TestContext;
let purge: Awaited<ReturnType<typeof startPurgeRecorder>>;
const vercel = cdnRecorder();

beforeAll(async () => {
  purge = await startPurgeRecorder();
  t = await makeTestContext({ CDN_CACHE: "1", CDN_PURGE_URL: purge.url });
  vercel.install();
});
afterAll(async () => {
  vercel.uninstall();
  await t?.close();
  await purge?.close();
});
afterEach(() => {
  purge.calls.splice(0);
  vercel.calls.splice(0);
});

const enc = (s: string) => new TextEncoder().encode(s);
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `t:${account?.id}`,
});

async function visit(label: string, path = "/") {
  const res = await serveRequest(t.ctx, dropRequest(label, path));
  return { status: res.status, tag: res.headers.get("cache-tag"), text: await res.text() };
}

/** A pro account's named drop with `n` versions (index.html says `<p>N</p>`, style.css the same), the last live. */
async function versions(n: number) {
  const owner = await accountWithKey(t.ctx, "pro");
  const name = `cp-${Math.random().toString(36).slice(2, 8)}`;
  let slug = "";
  for (let i = 1; i <= n; i++) {
    const files = [
      { path: "index.html", bytes: enc(`<p>${i}</p>`) },
      { path: "style.css", bytes: enc(`p{order:${i}}`) },
    ];
    slug = (await createDrop(t.ctx, callerOf(owner.account), { files, ttl: null, name })).slug;
  }
  const id = (await findDropBySlug(t.ctx.db, slug))!.id;
  return { owner, slug, id };
}

/** The tags POSTed to CDN_PURGE_URL since the last clear, one list per purge. */
const purgedTags = () => purge.calls.map((c) => (c.body as { tags: string[] }).tags);

describe("preview answers carry the version's tag", () => {
  it("beside the drop's: live host the drop's only, ---v<N> the version's too, an alias host the alias's as well", async () => {
    const { owner, slug, id } = await versions(2);
    await setDropAlias(t.ctx, owner.account, slug, "staging", 1);
    vercel.calls.splice(0);
    for (const path of ["/", "/style.css"]) {
      expect(await visit(slug, path)).toMatchObject({ status: 200, tag: dropTag(id) });
      expect(await visit(`${slug}---v1`, path)).toMatchObject({
        status: 200,
        tag: `${dropTag(id)},${versionTag(id, 1)}`,
      });
      expect(await visit(`${slug}---v2`, path)).toMatchObject({
        status: 200,
        tag: `${dropTag(id)},${versionTag(id, 2)}`,
      });
      expect(await visit(`${slug}---staging`, path)).toMatchObject({
        status: 200,
        tag: `${dropTag(id)},${versionTag(id, 1)},${aliasTag(id, "staging")}`,
      });
    }
    // On Vercel the same tags go through addCacheTag.
    expect(vercel.calls).toContainEqual(["addCacheTag", dropTag(id)]);
    expect(vercel.calls).toContainEqual(["addCacheTag", [dropTag(id), versionTag(id, 1)]]);
    expect(vercel.calls).toContainEqual(["addCacheTag", [dropTag(id), versionTag(id, 1), aliasTag(id, "staging")]]);
    // A version the drop does not keep answers the service's page, which no CDN keeps.
    expect(await visit(`${slug}---v7`)).toMatchObject({ status: 404, tag: null });
  });
});

describe("what purges preview answers", () => {
  it("moving an alias, then deleting it, purges the alias's tag outright, and nothing of the live host", async () => {
    const { owner, slug, id } = await versions(2);
    await setDropAlias(t.ctx, owner.account, slug, "staging", 1);
    expect((await visit(`${slug}---staging`)).text).toBe("<p>1</p>");
    purge.calls.splice(0);
    vercel.calls.splice(0);
    await setDropAlias(t.ctx, owner.account, slug, "staging", 2);
    expect(purgedTags()).toEqual([[aliasTag(id, "staging")]]);
    expect(vercel.calls).toEqual([["dangerouslyDeleteByTag", aliasTag(id, "staging")]]);
    expect(await visit(`${slug}---staging`)).toMatchObject({
      text: "<p>2</p>",
      tag: `${dropTag(id)},${versionTag(id, 2)},${aliasTag(id, "staging")}`,
    });

    purge.calls.splice(0);
    vercel.calls.splice(0);
    await deleteDropAlias(t.ctx, owner.account, slug, "staging");
    expect(purgedTags()).toEqual([[aliasTag(id, "staging")]]);
    expect(vercel.calls).toEqual([["dangerouslyDeleteByTag", aliasTag(id, "staging")]]);
    expect((await visit(`${slug}---staging`)).status).toBe(404);
    expect((await visit(slug)).text).toBe("<p>2</p>");
  });

  it("pruning purges the pruned versions' tags outright, not the drop's (the live host's answers stay)", async () => {
    const { owner, slug, id } = await versions(7);
    // Pro keeps them all; as a free account the drop keeps its newest 5: versions 1 and 2 go.
    for (const v of [1, 2, 3]) expect((await visit(`${slug}---v${v}`)).text).toBe(`<p>${v}</p>`);
    purge.calls.splice(0);
    vercel.calls.splice(0);
    await setPlan(t.ctx.db, owner.account.id, "free");
    await runCleanup(t.ctx);
    const pruned = [versionTag(id, 1), versionTag(id, 2)];
    expect(purgedTags()).toEqual([pruned]);
    expect(vercel.calls).toEqual([["dangerouslyDeleteByTag", pruned]]);
    expect((await visit(`${slug}---v1`)).status).toBe(404);
    expect((await visit(`${slug}---v3`)).text).toBe("<p>3</p>");
  });

  it("a change of access, a disable and a delete purge the drop's tag, which every preview answer carries", async () => {
    const { owner, slug, id } = await versions(2);
    await setDropAlias(t.ctx, owner.account, slug, "staging", 1);
    for (const label of [`${slug}---v1`, `${slug}---staging`])
      expect((await visit(label)).tag?.split(",")).toContain(dropTag(id));
    const changes: Array<[string, () => Promise<unknown>, string]> = [
      [
        "protect",
        () => setAccess(t.ctx, owner.account, slug, { mode: "password", password: "correct horse battery" }),
        "dangerouslyDeleteByTag",
      ],
      ["open", () => setAccess(t.ctx, owner.account, slug, { mode: "public" }), "invalidateByTag"],
      ["disable", () => disableDrop(t.ctx, { id: "test" }, slug, { reason: "spam" }), "dangerouslyDeleteByTag"],
      ["delete", () => deleteDrop(t.ctx, owner.account, slug), "dangerouslyDeleteByTag"],
    ];
    for (const [what, change, how] of changes) {
      purge.calls.splice(0);
      vercel.calls.splice(0);
      await change();
      expect(purgedTags(), what).toEqual([[dropTag(id)]]);
      expect(vercel.calls, what).toEqual([[how, dropTag(id)]]);
    }
    expect((await visit(`${slug}---v1`)).status).toBe(404);
  });
});
