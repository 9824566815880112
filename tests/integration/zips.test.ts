import { randomBytes } from "node:crypto";
import { zipSync, type Zippable } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { contents } from "@/lib/db/schema";
import { zipForDeploy } from "@/lib/files/pack";
import { limits } from "@/lib/plans";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import type { Storage } from "@/lib/storage/types";
import { suiteContext, apiRequest, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// Zip deploys stream: entries are inflated, verified, hashed and stored in groups (up to 2 MB
// of bytes that their reads allocate, one group at a time), so an archive can fail after some of its contents reached storage. A
// refusal at any point leaves no drop, no file or content row and no stored byte; what an
// archive shares with a live drop stays. And the zips the project's clients make are never
// refused for their decompression ratio, whose refusal says what really lifts it.

let ip = 0;
const noParams = { params: Promise.resolve({}) };
const MB = 1024 * 1024;

const t = suiteContext();
beforeEach(() => {
  t.ctx.limiter = new MemoryRateLimiter(() => t.clock.now);
});

function deployZip(archive: Uint8Array, query = "", headers: Record<string, string> = {}) {
  return deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: archive as BodyInit,
      headers: { "content-type": "application/zip", ...headers },
      ip: `198.51.100.${++ip % 250}`,
    }),
    noParams,
  );
}

async function served(slug: string, path: string): Promise<Uint8Array> {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${path}`));
  expect(res.status, path).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** Counts the puts that reach storage while a test runs. */
function countPuts(): { puts: string[]; restore: () => void } {
  const storage = t.ctx.storage;
  const puts: string[] = [];
  t.ctx.storage = Object.assign(Object.create(Object.getPrototypeOf(storage) as object) as Storage, storage, {
    put: async (key: string, bytes: Uint8Array, type: string) => {
      puts.push(key);
      return storage.put(key, bytes, type);
    },
  });
  return { puts, restore: () => (t.ctx.storage = storage) };
}

async function trace() {
  return {
    drops: await countDrops(t.ctx.db),
    files: await countFiles(t.ctx.db),
    contents: (await t.ctx.db.select({ sha256: contents.sha256 }).from(contents)).length,
    keys: await t.ctx.storage.list(""),
  };
}

/** Rewrites fields of one entry's central-directory record (what the reader trusts). */
function patchCentral(buf: Uint8Array, name: string, patch: { crc?: number; size?: number }): Uint8Array {
  const out = buf.slice();
  const view = new DataView(out.buffer);
  let eocd = out.length - 22;
  while (view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  let p = view.getUint32(eocd + 16, true);
  for (let i = 0; i < view.getUint16(eocd + 10, true); i++) {
    const nameLen = view.getUint16(p + 28, true);
    const entry = new TextDecoder().decode(out.subarray(p + 46, p + 46 + nameLen));
    if (entry === name) {
      if (patch.crc !== undefined) view.setUint32(p + 16, patch.crc, true);
      if (patch.size !== undefined) view.setUint32(p + 24, patch.size, true);
      return out;
    }
    p += 46 + nameLen + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
  }
  throw new Error(`no entry ${name}`);
}

describe("streaming zip deploys", () => {
  it("an archive of 900 entries, across many groups and with repeated contents, is served byte-exact", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const tree: Zippable = {};
    const expected = new Map<string, Uint8Array>();
    for (let i = 0; i < 900; i++) {
      // Two files of 4 MB (a group each), one of 9 MB (more than a group: streamed), every
      // 7th file one shared content.
      const bytes =
        i === 299 || i === 599
          ? new Uint8Array(randomBytes(4 * MB))
          : i === 899
            ? new TextEncoder().encode("nine megabytes of text ".repeat(410_000))
            : i % 7 === 0
              ? new TextEncoder().encode("shared content\n".repeat(50))
              : new Uint8Array(randomBytes(1 + (i % 40) * 37));
      const name = `site/d${i % 9}/f${i}.${i % 2 ? "bin" : "txt"}`;
      tree[name] = [bytes, { level: i % 3 === 0 ? 0 : 6 }];
      expected.set(name.slice("site/".length), bytes);
    }
    const res = await deployZip(zipSync(tree), "", bearer(pro.apiKey));
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.files).toHaveLength(900);
    expect(new Set(body.files)).toEqual(new Set(expected.keys()));
    for (const [path, bytes] of expected)
      expect(Buffer.from(await served(body.slug, `/${path}`)).equals(Buffer.from(bytes)), path).toBe(true);
  });

  it("a bad CRC in the last entry, found after earlier groups were stored, leaves nothing behind", async () => {
    const tree: Zippable = { "index.html": [new TextEncoder().encode("<h1>late failure</h1>"), { level: 6 }] };
    // Deflated, so each read allocates its 3 MB and is a group of its own (an entry stored as is
    // is a view of the archive, which costs a group nothing).
    for (let i = 0; i < 3; i++) tree[`chunk${i}.bin`] = [new Uint8Array(randomBytes(3 * MB)), { level: 1 }];
    tree["zz-last.txt"] = [new TextEncoder().encode("the last entry ".repeat(1000)), { level: 6 }];
    const archive = patchCentral(zipSync(tree), "zz-last.txt", { crc: 0x12345678 });
    const before = await trace();
    const counted = countPuts();
    try {
      const res = await deployZip(archive);
      const body = await res.json();
      expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "invalid_zip" });
      expect(body.error).toContain("zz-last.txt");
    } finally {
      counted.restore();
    }
    // The first group did reach storage before the failure…
    expect(counted.puts.length).toBeGreaterThan(0);
    // …and was purged with everything else.
    expect(await trace()).toEqual(before);
  });

  it("a bad CRC in an entry larger than 8 MB (streamed, never held whole) leaves nothing behind", async () => {
    const tree: Zippable = {
      "index.html": [new TextEncoder().encode("<h1>large failure</h1>"), { level: 6 }],
      // Random bytes keep the archive within the decompression ratio.
      "pad.bin": [new Uint8Array(randomBytes(5 * MB)), { level: 0 }],
      "big.txt": [new TextEncoder().encode("ten megabytes of text ".repeat(480_000)), { level: 6 }],
    };
    const archive = patchCentral(zipSync(tree), "big.txt", { crc: 0x0badc0de });
    const before = await trace();
    const res = await deployZip(archive);
    const body = await res.json();
    expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "invalid_zip" });
    expect(body.error).toContain("checksum mismatch in big.txt");
    expect(await trace()).toEqual(before);
  });

  it("a late entry that unpacks past its declared size is refused mid-stream; contents a live drop shares survive", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const shared = new Uint8Array(randomBytes(5 * MB));
    const live = await (
      await deployZip(
        zipSync({ "index.html": new TextEncoder().encode("<h1>live</h1>"), "shared.bin": [shared, { level: 0 }] }),
        "",
        bearer(pro.apiKey),
      )
    ).json();
    expect(live.slug).toBeTruthy();
    const before = await trace();
    // Earlier groups: a new content (stored), the shared one (already stored: pinned only) and
    // a filler; the last group: the lying entry. Deflated, so each read allocates and ends a group.
    const tree: Zippable = {
      "a/other.bin": [new Uint8Array(randomBytes(2 * MB)), { level: 1 }],
      "a/shared.bin": [shared, { level: 1 }],
      "a/filler.bin": [new Uint8Array(randomBytes(4 * MB)), { level: 1 }],
    };
    const big = new TextEncoder().encode("x".repeat(200_000));
    tree["a/zz-bomb.txt"] = [big, { level: 9 }];
    // The central directory claims 1,000 bytes: the archive passes every check made before
    // inflating, and the entry is caught while it inflates.
    const archive = patchCentral(zipSync(tree), "a/zz-bomb.txt", { size: 1000 });
    const counted = countPuts();
    try {
      const res = await deployZip(archive, "", bearer(pro.apiKey));
      const body = await res.json();
      expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "invalid_zip" });
      expect(body.error).toContain("past its declared size");
    } finally {
      counted.restore();
    }
    expect(counted.puts.length).toBeGreaterThan(0);
    expect(await trace()).toEqual(before);
    expect(Buffer.from(await served(live.slug, "/shared.bin")).equals(Buffer.from(shared))).toBe(true);
  });
});

describe("the decompression ratio", () => {
  // 4.1 MB of text that deflates to a sixth of its size or less: a bundle and a data file.
  const line = (i: number) =>
    `export function handler${i % 50}(event) { return dispatch({ type: "event", payload: event, retries: ${i % 7} }); }\n`;
  let bundle = "";
  for (let i = 0; bundle.length < 2.4 * MB; i++) bundle += line(i);
  let data = "[";
  for (let i = 0; data.length < 1.7 * MB; i++)
    data += `{"id":${i % 100},"name":"item","tags":["a","b","c"],"active":true},`;
  data += "{}]";
  const site = {
    "index.html": new TextEncoder().encode('<!doctype html><script src="app.js"></script>'),
    "app.js": new TextEncoder().encode(bundle),
    "data.json": new TextEncoder().encode(data),
  };
  const ratio = limits.free.decompressionRatio;

  it("a plain deflated zip of the site is refused, and the hint says no plan lifts the rule and what does", async () => {
    const plain = zipSync(site, { level: 6 });
    const unpacked = Object.values(site).reduce((n, b) => n + b.byteLength, 0);
    expect(unpacked).toBeGreaterThan(ratio * plain.byteLength);
    const before = await trace();
    const res = await deployZip(plain);
    const body = await res.json();
    expect({ status: res.status, code: body.code }).toEqual({ status: 413, code: "payload_too_large" });
    expect(body.hint).toContain(`No plan lifts this`);
    expect(body.hint).toContain(`${ratio}x`);
    expect(body.hint).toContain("dropsite deploy");
    expect(body.hint).toContain("uncompressed");
    expect(body.hint).not.toMatch(/paid plans raise/i);
    expect(body.upgrade_url).toBeUndefined();
    expect(await trace()).toEqual(before);
    // The same on a paid plan: the ratio is the same on every plan.
    const pro = await accountWithKey(t.ctx, "pro");
    const paid = await (await deployZip(plain, "", bearer(pro.apiKey))).json();
    expect(paid.code).toBe("payload_too_large");
    expect(paid.hint).toContain("No plan lifts this");
  });

  it("the clients' zip (zipForDeploy) of the same site deploys, within the ratio, and is served byte-exact", async () => {
    const archive = zipForDeploy(site);
    const unpacked = Object.values(site).reduce((n, b) => n + b.byteLength, 0);
    expect(unpacked).toBeLessThanOrEqual(ratio * archive.byteLength);
    // Only what the rule needs is stored uncompressed: the archive is well below the site's size.
    expect(archive.byteLength).toBeLessThan(unpacked / 2);
    const res = await deployZip(archive);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    for (const [path, bytes] of Object.entries(site))
      expect(Buffer.from(await served(body.slug, `/${path}`)).equals(Buffer.from(bytes)), path).toBe(true);
  });

  it("zipForDeploy deflates everything when the ratio allows it", () => {
    const small = {
      "a.txt": new TextEncoder().encode("hello hello hello hello ".repeat(10)),
      "b.bin": new Uint8Array(randomBytes(10_000)),
    };
    const archive = zipForDeploy(small, 1000);
    expect(archive.byteLength).toBeLessThan(10_000 + 240 + 400);
    expect(zipForDeploy(small, 1).byteLength).toBeGreaterThanOrEqual(10_000 + 240);
  });
});
