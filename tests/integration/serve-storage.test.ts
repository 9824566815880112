import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anonymousCaller } from "@/lib/auth/caller";
import type { AppContext } from "@/lib/context";
import { createDrop } from "@/lib/deploy/store";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import type { Storage } from "@/lib/storage/types";
import { makeTestContext, TEST_BASE_URL, TEST_SERVE_DOMAIN, type TestContext } from "../support/context";

// The serve path when storage does not have or cannot give a file its manifest names: bytes gone
// (another instance replaced the drop) make it look again once, then 404; a failing read is 503
// with Retry-After. From memory, compressed, and streamed (SERVE_CACHE_BYTES=0).

const enc = (s: string) => new TextEncoder().encode(s);

async function visit(
  ctx: AppContext,
  label: string,
  p: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const action = resolveHost(`${label}.${TEST_SERVE_DOMAIN}`, {
    serveDomain: TEST_SERVE_DOMAIN,
    appHost: new URL(TEST_BASE_URL).host,
  });
  const res = await serveDrop(ctx, action, { method: "GET", pathname: p, headers: new Headers(headers) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Replaces storage reads for the test's span; counts them. */
function readsAs(storage: Storage, get: Storage["get"]): { reads: () => number; restore: () => void } {
  const original = storage.get.bind(storage);
  let n = 0;
  storage.get = (ref, range) => {
    n++;
    return get(ref, range);
  };
  return { reads: () => n, restore: () => void (storage.get = original) };
}

describe.each([
  ["in memory", {}],
  ["streamed", { SERVE_CACHE_BYTES: "0" }],
])("storage behind the serve path (%s)", (_, vars) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext(vars);
  });
  afterAll(async () => {
    await t.close();
  });

  async function dropWith(text: string): Promise<string> {
    // A 404.html too: the answer after the second look is the service's page, not the drop's.
    const d = await createDrop(t.ctx, anonymousCaller, {
      files: [
        { path: "page.txt", bytes: enc(text.repeat(50)) },
        { path: "404.html", bytes: enc("drop's own 404") },
      ],
      ttl: 3600,
    });
    return d.slug;
  }

  it.each([
    ["as stored", {}],
    ["compressed", { "accept-encoding": "br" }],
    ["a range", { range: "bytes=0-3" }],
  ])("bytes storage no longer has (%s): the manifest is read again, once, then 404", async (_, headers) => {
    const slug = await dropWith(`gone ${Math.random()} `);
    const gone = readsAs(t.ctx.storage, async () => null);
    try {
      const res = await visit(t.ctx, slug, "/page.txt", headers);
      expect(res.status).toBe(404);
      expect(res.text).toContain("There is nothing at this address.");
      expect(gone.reads()).toBeGreaterThanOrEqual(2);
    } finally {
      gone.restore();
    }
    expect((await visit(t.ctx, slug, "/page.txt")).status).toBe(200);
  });

  it.each([
    ["as stored", {}],
    ["compressed", { "accept-encoding": "gzip" }],
    ["a range", { range: "bytes=0-3" }],
  ])("a read that fails (%s) answers 503 with Retry-After and no bytes of the drop", async (_, headers) => {
    const text = `fails ${Math.random()} `;
    const slug = await dropWith(text);
    const failing = readsAs(t.ctx.storage, async () => {
      throw new Error("storage is down");
    });
    try {
      const res = await visit(t.ctx, slug, "/page.txt", headers);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("30");
      expect(res.text).not.toContain(text);
      expect(failing.reads()).toBeGreaterThanOrEqual(1);
    } finally {
      failing.restore();
    }
    const ok = await visit(t.ctx, slug, "/page.txt", headers);
    expect(ok.status).toBe(Object.keys(headers).includes("range") ? 206 : 200);
  });
});
