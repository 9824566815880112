import fc from "fast-check";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/errors";
import { isBase64, findDuplicateKey } from "@/lib/deploy/json";
import { decodeFilesMap, parseJsonStrict } from "@/lib/deploy/body";
import { normalizeFiles, normalizePath } from "@/lib/deploy/paths";
import { openZip } from "@/lib/deploy/zip";
import { INPUT_LIMITS, utf8Bytes } from "@/lib/input";
import { limits } from "@/lib/plans";
import { parseListQuery } from "@/lib/drops/manage";
import { resolveTtl } from "@/lib/deploy/ttl";
import { resolveHost } from "@/lib/serve/host";
import { check } from "../support/fuzz";

// Property-based tests of every parser and validator of hostile input. Each property says
// what must hold for every input: the only failure is an ApiError (never a crash), and what is
// accepted is safe.

/** Runs f; the result, or the ApiError it threw. Any other error fails the property. */
function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false; error: ApiError } {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: err };
    throw err;
  }
}

/** outcome() for an async f. */
async function outcomeAsync<T>(f: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: ApiError }> {
  try {
    return { ok: true, value: await f() };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: err };
    throw err;
  }
}

const segmentChars = fc.constantFrom(
  "a",
  "b",
  "é",
  ".",
  "..",
  "/",
  "\\",
  "\u0000",
  "\n",
  "%2e",
  "C:",
  " ",
  "__proto__",
  "\uD800",
  "😀",
  "index.html",
  "x".repeat(150),
);
const pathLike = fc.oneof(
  fc.string({ maxLength: 300, unit: "binary" }),
  fc.array(segmentChars, { maxLength: 12 }).map((a) => a.join("")),
);

describe("path normalisation", () => {
  it("an accepted path is relative, inside the drop, within the byte limits, and normalises to itself", () =>
    check(
      fc.property(pathLike, (raw) => {
        const r = outcome(() => normalizePath(raw));
        if (!r.ok) return void expect(r.error.code).toBe("invalid_request");
        const p = r.value;
        expect(p.startsWith("/")).toBe(false);
        expect(/^[A-Za-z]:/.test(p)).toBe(false);
        expect(p.includes("\\")).toBe(false);
        // eslint-disable-next-line no-control-regex
        expect(/[\u0000-\u001f\u007f]/.test(p)).toBe(false);
        expect(utf8Bytes(p)).toBeLessThanOrEqual(INPUT_LIMITS.pathBytes);
        for (const seg of p.split("/")) {
          expect(seg === "" || seg === "." || seg === "..").toBe(false);
          expect(utf8Bytes(seg)).toBeLessThanOrEqual(INPUT_LIMITS.segmentBytes);
        }
        expect(normalizePath(p)).toBe(p);
      }),
      5,
    ));

  it("no two accepted files of one request collide, and none is another's folder", () =>
    check(
      fc.property(fc.array(pathLike, { maxLength: 8 }), (paths) => {
        const r = outcome(() => normalizeFiles(paths.map((path) => ({ path, bytes: new Uint8Array() }))));
        if (!r.ok) return;
        const out = r.value.map((f) => f.path);
        expect(new Set(out).size).toBe(out.length);
        for (const a of out) for (const b of out) expect(b.startsWith(`${a}/`)).toBe(false);
      }),
    ));
});

describe("files map", () => {
  const protoKeys = fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "a/__proto__",
    "toString",
    "hasOwnProperty",
  );
  const key = fc.oneof(pathLike, protoKeys);
  const value = fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.record({
      encoding: fc.constantFrom("base64", "hex", ""),
      content: fc.oneof(fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 20 })),
    }),
    fc.jsonValue({ maxDepth: 2 }),
  );

  it("random JSON with prototype keys, odd types and huge strings is files or invalid_request, never a crash", () =>
    check(
      fc.property(fc.oneof(fc.dictionary(key, value, { maxKeys: 6 }), fc.jsonValue({ maxDepth: 3 })), (files) => {
        // Through JSON text, as a request body arrives: "__proto__" stays an own key.
        const raw = JSON.parse(JSON.stringify({ files })) as { files: unknown };
        const r = outcome(() => normalizeFiles(decodeFilesMap(raw.files, limits.free, false)));
        if (!r.ok)
          return void expect(["invalid_request", "file_cap_exceeded", "payload_too_large"]).toContain(r.error.code);
        for (const f of r.value) expect(f.bytes).toBeInstanceOf(Uint8Array);
      }),
    ));

  it("duplicate keys anywhere in the text are refused; JSON.stringify output never has any", () =>
    check(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 }),
        fc.nat(),
        (obj, n) => {
          const text = JSON.stringify({ files: obj });
          expect(findDuplicateKey(text)).toBeNull();
          const keys = Object.keys(obj);
          const k = keys[n % keys.length]!;
          const dup = `{"files":${text.slice(9, -2)},${JSON.stringify(k)}:1}}`;
          expect(findDuplicateKey(dup)?.key).toBe(k);
          expect(outcome(() => parseJsonStrict(dup)).ok).toBe(false);
        },
      ),
    ));

  it("isBase64 accepts exactly what a reference regular expression accepts (short strings)", () => {
    const reference = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
    return check(
      fc.property(
        fc.oneof(
          fc.base64String({ maxLength: 40 }),
          fc.string({ unit: fc.constantFrom("A", "z", "0", "+", "/", "=", "-", "_", " ", "\n"), maxLength: 16 }),
        ),
        (s) => {
          expect(isBase64(s)).toBe(reference.test(s));
        },
      ),
      5,
    );
  });
});

describe("zip reader", () => {
  const names = fc.array(
    fc.oneof(pathLike, fc.constantFrom("a.html", "dir/b.txt", "../x", "C:/y", "/abs", "site/index.html")),
    { minLength: 1, maxLength: 5 },
  );
  const tooLarge = (m: string) => new ApiError("payload_too_large", m);
  const zipLimits = {
    maxFiles: 100,
    maxTotalBytes: 4 * 1024 * 1024,
    maxFileBytes: 1024 * 1024,
    tooManyFiles: () => new ApiError("file_cap_exceeded", "too many"),
    tooLarge,
    overRatio: tooLarge,
  };

  /** Opens the archive (whole, or as the chunks a body arrives in) and reads every entry, as a deploy would. */
  function readZip(buf: Uint8Array | Uint8Array[]) {
    return outcomeAsync(async () => {
      const files = normalizeFiles(openZip(buf, zipLimits));
      for (const f of files) f.bytes = await f.source!.read();
      return files;
    });
  }

  it("random bytes are refused with an envelope error, never a crash", () =>
    check(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        const r = await readZip(bytes);
        if (!r.ok)
          expect(["invalid_zip", "invalid_request", "payload_too_large", "file_cap_exceeded"]).toContain(r.error.code);
      }),
    ));

  it("an archive read as chunks cut anywhere (as a body arrives) gives what the whole archive gives", () =>
    check(
      fc.asyncProperty(
        names,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 2 }),
        async (entryNames, cuts, flips) => {
          const entries: Record<string, Uint8Array> = {};
          for (const n of entryNames) entries[n] = new TextEncoder().encode(`<p>${n}</p>`.repeat(n.length % 7));
          let buf: Uint8Array;
          try {
            buf = zipSync(entries);
          } catch {
            return;
          }
          for (const [at, byte] of flips) buf[at % buf.length] = byte;
          const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let from = 0;
          for (const p of [...points, buf.length]) {
            chunks.push(buf.slice(from, p));
            from = p;
          }
          const whole = await readZip(buf);
          const chunked = await readZip(chunks);
          if (!whole.ok) return void expect(chunked.ok ? "accepted" : chunked.error.code).toBe(whole.error.code);
          expect(chunked.ok).toBe(true);
          if (!chunked.ok) return;
          expect(chunked.value.map((f) => [f.path, Buffer.from(f.bytes).toString("hex")])).toEqual(
            whole.value.map((f) => [f.path, Buffer.from(f.bytes).toString("hex")]),
          );
        },
      ),
    ));

  it("archives with hostile names, and mutations of them, yield only safe paths or an envelope error", () =>
    check(
      fc.asyncProperty(
        names,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        async (entryNames, flips) => {
          const entries: Record<string, Uint8Array> = {};
          for (const n of entryNames) entries[n] = new TextEncoder().encode(`<p>${n.length}</p>`);
          let buf: Uint8Array;
          try {
            buf = zipSync(entries);
          } catch {
            return; // a name fflate itself cannot write
          }
          for (const [at, byte] of flips) if (buf.length > 0) buf[at % buf.length] = byte;
          const r = await readZip(buf);
          if (!r.ok)
            return void expect(["invalid_zip", "invalid_request", "payload_too_large", "file_cap_exceeded"]).toContain(
              r.error.code,
            );
          for (const f of r.value) {
            expect(f.path.split("/")).not.toContain("..");
            expect(f.path.startsWith("/")).toBe(false);
            expect(/^[A-Za-z]:/.test(f.path)).toBe(false);
          }
        },
      ),
    ));
});

describe("host resolution", () => {
  const cfgs = [
    { serveDomain: "drops.example.com", appHost: "example.com" },
    { serveDomain: "localhost:3000", appHost: "localhost:3000" },
    { serveDomain: "example-drops.com", appHost: "app.example.com" },
  ];
  const label = fc.string({
    unit: fc.constantFrom("a", "b", "1", "-", ".", ":", "_", "A", "\u0000", " "),
    maxLength: 12,
  });

  it("the app host, in any spelling, never reaches a drop; a drop host reaches only its own label", () =>
    check(
      fc.property(
        fc.constantFrom(...cfgs),
        label,
        fc.constantFrom("", ".", ":80", ":443", ". "),
        fc.boolean(),
        (cfg, l, tail, upper) => {
          const appSpelling =
            (upper ? cfg.appHost.toUpperCase() : cfg.appHost) + (tail === ":80" || tail === ":443" ? "" : tail.trim());
          expect(resolveHost(appSpelling, cfg).kind).toBe("app");
          const host = `${l}.${cfg.serveDomain}`;
          const action = resolveHost(host, cfg);
          if (action.kind === "drop") {
            expect(action.slug).toBe(l.trim().toLowerCase());
            expect(action.slug).toMatch(/^[a-z0-9-]+$/);
            expect(action.slug.includes("--")).toBe(false);
          }
          if (action.kind === "vanity") expect(`${action.sub}--${action.name}`).toBe(l.trim().toLowerCase());
        },
      ),
    ));
});

describe("query parameters", () => {
  const raw = fc.oneof(
    fc.string({ maxLength: 25 }),
    fc.constantFrom(
      "99999999999999999999",
      "-1",
      "1e3",
      "0x10",
      "NaN",
      "Infinity",
      "60.0",
      " 60",
      "+60",
      "9007199254740993",
    ),
  );

  it("limit and offset are in range or invalid_request", () =>
    check(
      fc.property(fc.record({ limit: raw, offset: raw }, { requiredKeys: [] }), (q) => {
        const r = outcome(() => parseListQuery(new URLSearchParams(q as Record<string, string>)));
        if (!r.ok) return void expect(r.error.code).toBe("invalid_request");
        expect(Number.isSafeInteger(r.value.limit) && r.value.limit >= 1 && r.value.limit <= 500).toBe(true);
        expect(Number.isSafeInteger(r.value.offset) && r.value.offset >= 0 && r.value.offset <= 2_147_483_647).toBe(
          true,
        );
      }),
    ));

  it("ttl is a whole number of seconds within the plan, or invalid_ttl", () =>
    check(
      fc.property(raw, fc.constantFrom<"anonymous" | "free" | "pro">("anonymous", "free", "pro"), (ttl, tier) => {
        const l = limits[tier];
        const r = outcome(() => resolveTtl(ttl, l, tier === "pro"));
        if (!r.ok) return void expect(r.error.code).toBe("invalid_ttl");
        if (r.value === null) return;
        expect(Number.isSafeInteger(r.value)).toBe(true);
        expect(r.value).toBeGreaterThanOrEqual(l.ttlMinSeconds);
        if (l.ttlMaxSeconds !== null) expect(r.value).toBeLessThanOrEqual(l.ttlMaxSeconds);
      }),
    ));
});
