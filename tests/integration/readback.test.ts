import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { unzipSync } from "fflate";
import { POST as deployPOST } from "@/app/deploy/route";
import * as archiveRoute from "@/app/drops/[slug]/archive/route";
import * as filesRoute from "@/app/drops/[slug]/files/route";
import * as fileRoute from "@/app/drops/[slug]/files/[...path]/route";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import { setPlan } from "@/lib/db/accounts";
import { runCleanup } from "@/lib/drops/lifecycle";
import { encodeFilePath } from "@/lib/drops/readback";
import { zipForDeploy } from "@/lib/files/pack";
import { suiteContext, apiRequest } from "../support/context";
import { zip } from "../support/zips";
import { accountWithKey, bearer } from "../support/accounts";
import { teamKeyOf, teamWith } from "../support/teams";

// Taking a site back out: any retained version as a zip, its files listed and read back byte for
// byte (the rule files too), whatever the drop's access mode; only to the owner and the owning
// team's members; every answer with a drop's bytes an attachment that never renders.

const t = suiteContext({}, { freshLimiter: true });
let ip = 0;
const noParams = { params: Promise.resolve({}) };
const nextIp = () => `198.51.100.${(++ip % 200) + 20}`;

const enc = new TextEncoder();
/** A site with every kind of path and content the read-back must keep. */
function site(): Record<string, Uint8Array> {
  return {
    "index.html": enc.encode("<!doctype html><title>home</title>" + "<p>text that deflates well</p>".repeat(400)),
    _redirects: enc.encode("/old /index.html 301\n"),
    _headers: enc.encode("/*\n  X-Site: yes\n"),
    "empty.txt": new Uint8Array(0),
    "img/photo.bin": new Uint8Array(randomBytes(300_000)),
    "a/b/c/d/e/f/deep.txt": enc.encode("deep"),
    "docs/café ünï 日本.html": enc.encode("<p>non-ascii</p>"),
    "zeros.txt": new Uint8Array(2_000_000),
  };
}

async function deployZip(key: string, name: string, body: Uint8Array) {
  const res = await deployPOST(
    apiRequest(`/deploy?name=${name}`, {
      method: "POST",
      body: Buffer.from(body),
      headers: { "content-type": "application/zip", ...bearer(key) },
      ip: nextIp(),
    }),
    noParams,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Mod = Record<string, (req: Request, ctx: { params: Promise<Record<string, unknown>> }) => Promise<Response>>;
const get = (mod: Mod, pathAndQuery: string, params: Record<string, unknown>, key?: string) =>
  mod.GET!(apiRequest(pathAndQuery, { headers: key ? bearer(key) : {}, ip: nextIp() }), {
    params: Promise.resolve(params),
  });

const archive = (slug: string, key?: string, query = "") =>
  get(archiveRoute as unknown as Mod, `/drops/${slug}/archive${query}`, { slug }, key);
const list = (slug: string, key?: string, query = "") =>
  get(filesRoute as unknown as Mod, `/drops/${slug}/files${query}`, { slug }, key);
const file = (slug: string, path: string, key?: string, query = "") =>
  get(
    fileRoute as unknown as Mod,
    `/drops/${slug}/files/${encodeFilePath(path)}${query}`,
    { slug, path: path.split("/") },
    key,
  );

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const codeOf = async (res: Response) => ((await res.json()) as { code?: string }).code;

function expectReadBackHeaders(res: Response) {
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="/);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("content-security-policy")).toBe("sandbox");
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
}

describe("read-back of a version", () => {
  it("every path comes back byte for byte: listed, one by one and in the archive; the archive redeploys unchanged", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const files = site();
    const first = await deployZip(pro.apiKey, "backout", zipForDeploy(files));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const slug = first.body.slug as string;

    const listed = await list(slug, pro.apiKey);
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as {
      version: number;
      files: { path: string; size: number; hash: string; content_type: string }[];
    };
    expect(body.version).toBe(1);
    expect(body.files.map((f) => f.path).sort()).toEqual(Object.keys(files).sort());
    for (const f of body.files) {
      expect(f.size).toBe(files[f.path]!.byteLength);
      expect(f.hash).toBe(sha(files[f.path]!));
    }
    expect(body.files.find((f) => f.path === "index.html")?.content_type).toMatch(/^text\/html/);

    for (const [path, bytes] of Object.entries(files)) {
      const res = await file(slug, path, pro.apiKey);
      expect(res.status, path).toBe(200);
      expectReadBackHeaders(res);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes)), path).toBe(true);
    }

    const zipped = await archive(slug, pro.apiKey);
    expect(zipped.status).toBe(200);
    expectReadBackHeaders(zipped);
    expect(zipped.headers.get("content-type")).toBe("application/zip");
    expect(zipped.headers.get("content-disposition")).toBe(`attachment; filename="${slug}-v1.zip"`);
    const archived = new Uint8Array(await zipped.arrayBuffer());
    const unpacked = unzipSync(archived);
    expect(Object.keys(unpacked).sort()).toEqual(Object.keys(files).sort());
    for (const [path, bytes] of Object.entries(files))
      expect(Buffer.from(unpacked[path]!).equals(Buffer.from(bytes)), path).toBe(true);
    // Text deflated where the deploy's ratio allows: smaller than the files, yet it deploys again.
    const total = Object.values(files).reduce((n, b) => n + b.byteLength, 0);
    expect(archived.byteLength).toBeLessThan(total);

    const again = await deployZip(pro.apiKey, "backout", archived);
    expect(again.body).toMatchObject({ slug, version: 1, unchanged: true });
  });

  it("reads any retained version, whatever the access mode; a pruned or unknown version and a missing path are 404", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const first = await deployZip(pro.apiKey, "older", zip({ "index.html": "v1" }));
    const slug = first.body.slug as string;
    for (let v = 2; v <= 7; v++) await deployZip(pro.apiKey, "older", zip({ "index.html": `v${v}` }));
    const locked = await accessRoute.PUT(
      apiRequest(`/drops/${slug}/access`, {
        method: "PUT",
        body: JSON.stringify({ mode: "password", password: "correct horse battery" }),
        headers: { "content-type": "application/json", ...bearer(pro.apiKey) },
      }),
      { params: Promise.resolve({ slug }) },
    );
    expect(locked.status).toBe(200);

    expect(await (await file(slug, "index.html", pro.apiKey)).text()).toBe("v7");
    expect(await (await file(slug, "index.html", pro.apiKey, "?version=2")).text()).toBe("v2");
    expect(((await (await list(slug, pro.apiKey, "?version=3")).json()) as { version: number }).version).toBe(3);
    const older = unzipSync(new Uint8Array(await (await archive(slug, pro.apiKey, "?version=2")).arrayBuffer()));
    expect(new TextDecoder().decode(older["index.html"])).toBe("v2");

    // The free plan keeps 5 versions: the cleanup job prunes 1 and 2.
    await setPlan(t.ctx.db, pro.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, pro.account.id, "pro");
    for (const res of [
      await file(slug, "index.html", pro.apiKey, "?version=2"),
      await list(slug, pro.apiKey, "?version=1"),
      await archive(slug, pro.apiKey, "?version=2"),
      await archive(slug, pro.apiKey, "?version=99"),
      await archive(slug, pro.apiKey, "?version=0"),
      await archive(slug, pro.apiKey, "?version=abc"),
      await file(slug, "missing.html", pro.apiKey),
      await file(slug, "index.html/x", pro.apiKey),
    ]) {
      expect(res.status).toBe(404);
      expect(await codeOf(res)).toBe("not_found");
    }
    expect((await archive(slug, pro.apiKey, "?version=3")).status).toBe(200);
  });

  it("another account gets 404, no credential 401, a team's viewer reads", async () => {
    const { slug: team, owner, people } = await teamWith(t.ctx, ["viewer"]);
    const teamKey = await teamKeyOf(t.ctx, owner, team);
    const viewerKey = await teamKeyOf(t.ctx, people[0]!, team, "viewer");
    const deployed = await deployZip(teamKey, "teamsite", zip({ "index.html": "team", _headers: "/*\n  X-A: b\n" }));
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    const slug = deployed.body.slug as string;

    const viewer = await archive(slug, viewerKey);
    expect(viewer.status).toBe(200);
    expect(Object.keys(unzipSync(new Uint8Array(await viewer.arrayBuffer()))).sort()).toEqual([
      "_headers",
      "index.html",
    ]);
    expect(await (await file(slug, "_headers", viewerKey)).text()).toBe("/*\n  X-A: b\n");

    const other = await accountWithKey(t.ctx, "team");
    for (const res of [
      await archive(slug, other.apiKey),
      await list(slug, other.apiKey),
      await file(slug, "index.html", other.apiKey),
    ]) {
      expect(res.status).toBe(404);
      expect(await codeOf(res)).toBe("not_found");
    }
    for (const res of [await archive(slug), await list(slug), await file(slug, "index.html")]) {
      expect(res.status).toBe(401);
      expect(await codeOf(res)).toBe("auth_required");
    }
  });
});
