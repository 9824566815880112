import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import { serveGET } from "../support/serve";
import { countDrops, findDropBySlug } from "@/lib/db/queries";
import { runCleanup } from "@/lib/drops/lifecycle";
import { IDEMPOTENCY_SECONDS } from "@/lib/plans";
import { suiteContext, apiRequest, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { startDataPlane, type RunningPlane } from "../support/plane";

// Idempotency-Key on POST /deploy, POST /deploy/{slug} and POST /drops/{slug}/rollback: the
// same request with the same key from the same caller within 24 hours replays the first answer
// and writes nothing; another request with the key is 409; parallel requests write once.

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let keySeq = 0;
const newKey = () => `key-${Date.now()}-${++keySeq}`;

async function deploy(body: string, headers: Record<string, string>, query = "", ip = "198.51.100.10") {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, { method: "POST", body, headers: { "content-type": "text/html", ...headers }, ip }),
    noParams,
  );
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown> & { slug: string; version: number },
  };
}

async function rollback(apiKey: string, slug: string, version: number, headers: Record<string, string> = {}) {
  const res = await rollbackRoute.POST(
    apiRequest(`/drops/${slug}/rollback`, {
      method: "POST",
      body: JSON.stringify({ version }),
      headers: { "content-type": "application/json", ...bearer(apiKey), ...headers },
    }),
    { params: Promise.resolve({ slug }) },
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const servedText = async (slug: string) => (await serveGET(dropRequest(slug, "/api/serve-drop/"))).text();

describe("POST /deploy with Idempotency-Key", () => {
  it("the same request replays the first answer with Idempotent-Replayed: true and creates nothing", async () => {
    const key = newKey();
    const first = await deploy("<p>once</p>", { "idempotency-key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const drops = await countDrops(t.ctx.db);
    // Headers outside the fingerprint (User-Agent, X-Forwarded-For) do not make it another request.
    const again = await deploy("<p>once</p>", {
      "idempotency-key": key,
      "user-agent": "retry/2",
      "x-forwarded-for": "192.0.2.99",
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await countDrops(t.ctx.db)).toBe(drops);
  });

  it("the same key with another body, query or Content-Type answers 409 conflict and writes nothing", async () => {
    const key = newKey();
    expect((await deploy("<p>a</p>", { "idempotency-key": key })).status).toBe(200);
    const drops = await countDrops(t.ctx.db);
    for (const [body, headers, query] of [
      ["<p>b</p>", {}, ""],
      ["<p>a</p>", {}, "?ttl=3600"],
      ["<p>a</p>", { "content-type": "text/plain" }, ""],
    ] as const) {
      const r = await deploy(body, { "idempotency-key": key, ...headers }, query);
      expect(r).toMatchObject({ status: 409, body: { code: "conflict" } });
    }
    expect(await countDrops(t.ctx.db)).toBe(drops);
  });

  it("keys belong to the caller: another address or an account with the same key writes anew", async () => {
    const key = newKey();
    const a = await deploy("<p>x</p>", { "idempotency-key": key }, "", "198.51.100.21");
    const b = await deploy("<p>x</p>", { "idempotency-key": key }, "", "198.51.100.22");
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const c = await deploy("<p>x</p>", { "idempotency-key": key, ...bearer(apiKey) }, "", "198.51.100.21");
    expect(new Set([a.body.slug, b.body.slug, c.body.slug]).size).toBe(3);
  });

  it("10 parallel requests with one key create exactly one drop; the others replay it or are told it is in flight", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const key = newKey();
    const drops = await countDrops(t.ctx.db);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        deploy("<p>parallel</p>", { "idempotency-key": key, ...bearer(apiKey) }, "?name=parallel"),
      ),
    );
    expect(await countDrops(t.ctx.db)).toBe(drops + 1);
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.slug)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({ status: 409, body: { code: "conflict" } });
      expect(r.headers.get("retry-after")).toBe("1");
    }
    // Once the first has finished, every retry replays it.
    const late = await deploy("<p>parallel</p>", { "idempotency-key": key, ...bearer(apiKey) }, "?name=parallel");
    expect(late).toMatchObject({ status: 200, body: { slug: ok[0]!.body.slug, version: 1 } });
    expect(late.headers.get("idempotent-replayed")).toBe("true");
    const drop = await findDropBySlug(t.ctx.db, ok[0]!.body.slug);
    expect(drop?.liveVersion).toBe(1);
  });

  it("bad keys (empty, 256 characters, non-printable) answer 400 invalid_request and create nothing", async () => {
    const drops = await countDrops(t.ctx.db);
    for (const key of ["", "k".repeat(256), "tab\there", "bell\u0007", "caf\u00e9", "del\u007f"]) {
      const r = await deploy("<p>bad</p>", { "idempotency-key": key });
      expect(r, JSON.stringify(key)).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    }
    expect(await countDrops(t.ctx.db)).toBe(drops);
    // 1 and 255 characters are fine.
    expect((await deploy("<p>1</p>", { "idempotency-key": "k" }, "", "198.51.100.31")).status).toBe(200);
    expect((await deploy("<p>255</p>", { "idempotency-key": "k".repeat(255) }, "", "198.51.100.31")).status).toBe(200);
  });

  it("a key is kept 24 hours: after that the same request writes again, and the cleanup job removes the row", async () => {
    const key = newKey();
    const first = await deploy("<p>day</p>", { "idempotency-key": key }, "", "198.51.100.41");
    t.clock.advance(IDEMPOTENCY_SECONDS - 60);
    expect((await deploy("<p>day</p>", { "idempotency-key": key }, "", "198.51.100.41")).body.slug).toBe(
      first.body.slug,
    );
    t.clock.advance(120);
    await runCleanup(t.ctx);
    const later = await deploy("<p>day</p>", { "idempotency-key": key }, "", "198.51.100.41");
    expect(later.status).toBe(200);
    expect(later.body.slug).not.toBe(first.body.slug);
  });
});

describe("POST /deploy/{slug} and POST /drops/{slug}/rollback with Idempotency-Key", () => {
  it("a replayed append adds nothing", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy("<p>base</p>", bearer(apiKey), "?name=app-idem")).body;
    const key = newKey();
    const send = () =>
      appendPOST(
        apiRequest(`/deploy/${slug}`, {
          method: "POST",
          body: JSON.stringify({ files: { "more.html": "m" } }),
          headers: { "content-type": "application/json", ...bearer(apiKey), "idempotency-key": key },
        }),
        { params: Promise.resolve({ slug }) },
      );
    const first = await send();
    expect(first.status).toBe(200);
    const again = await send();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect((await findDropBySlug(t.ctx.db, slug))?.liveVersion).toBe(2);
  });

  it("a replayed rollback returns the first answer and moves nothing", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy("<p>v1</p>", bearer(apiKey), "?name=rb-idem")).body;
    await deploy("<p>v2</p>", bearer(apiKey), "?name=rb-idem");
    const key = newKey();
    const first = await rollback(apiKey, slug, 1, { "idempotency-key": key });
    expect(first).toMatchObject({ status: 200, body: { live_version: 1 } });
    expect((await rollback(apiKey, slug, 2)).body.live_version).toBe(2);
    const replay = await rollback(apiKey, slug, 1, { "idempotency-key": key });
    expect(replay).toMatchObject({ status: 200, body: first.body });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await servedText(slug)).toBe("<p>v2</p>");
    expect(await rollback(apiKey, slug, 2, { "idempotency-key": key })).toMatchObject({
      status: 409,
      body: { code: "conflict" },
    });
    expect(await rollback(apiKey, slug, 1, { "idempotency-key": "x".repeat(256) })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await servedText(slug)).toBe("<p>v2</p>");
  });
});

describe("the data plane (lib/plane/node.ts) honours Idempotency-Key on POST /deploy", () => {
  let plane: RunningPlane;
  let port: number;
  beforeAll(async () => {
    plane = await startDataPlane();
    port = plane.port;
  });
  afterAll(() => plane.close());

  function post(body: string, key: string): Promise<{ status: number; replayed: string | undefined; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: "/deploy",
          method: "POST",
          headers: {
            host: "localhost:3000",
            "content-type": "text/html",
            "idempotency-key": key,
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              replayed: res.headers["idempotent-replayed"] as string | undefined,
              text,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("replays the first answer", async () => {
    const key = newKey();
    const drops = await countDrops(t.ctx.db);
    const first = await post("<p>plane</p>", key);
    expect(first.status).toBe(200);
    const again = await post("<p>plane</p>", key);
    expect(again).toMatchObject({ status: 200, replayed: "true", text: first.text });
    expect(await countDrops(t.ctx.db)).toBe(drops + 1);
    expect((await post("<p>other</p>", key)).status).toBe(409);
  });
});
