import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountWithKey, bearer } from "../support/accounts";
import { makeTestContext, type TestContext } from "../support/context";
import { freePort } from "../support/net";
import { startNext as startNextApp, type NextStart } from "../support/next-start";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { startPgServer, type PgServer } from "../support/pg-server";

// The Next side's traces where server.mjs does not run (`next start`, as on Vercel):
// instrumentation.ts registers @vercel/otel when OTEL_EXPORTER_OTLP_ENDPOINT is set, Next's
// server span of an API route reaches the local OTLP receiver, an incoming traceparent behind a
// trusted proxy (TRUST_PROXY) is continued, and the webhook delivery the request caused (run by
// after()) is a webhook.deliver span of its own trace, linked to that request's.

const SERVER = 2; // SPAN_KIND_SERVER
let pg: PgServer;
let t: TestContext;
let otlp: OtlpReceiver;
let next: NextStart | undefined;
let untrusted: NextStart | undefined;
let hooks: Server;
let hookUrl: string;
const received: { webhookId: string }[] = [];
let dataDir: string;
let base: string;
let out = "";

beforeAll(async () => {
  pg = await startPgServer();
  t = await makeTestContext({ DATABASE_URL: pg.url });
  otlp = await startOtlpReceiver();
  hooks = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push({ webhookId: String(req.headers["webhook-id"]) });
      res.writeHead(204).end();
    });
  });
  const hport = await freePort();
  await new Promise<void>((r) => hooks.listen(hport, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${hport}/hook`;
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-otel-"));
  next = await startNext({ TRUST_PROXY: "1" });
  base = next.base;
}, 240_000);

/** `next start` of the built app on the test's database, sending traces to the receiver. */
const startNext = (vars: Record<string, string>) =>
  startNextApp(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      WEBHOOKS_ALLOW_PRIVATE: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: "dropsite-next-test",
      ...vars,
    },
    (d) => (out += d),
  );

afterAll(async () => {
  await next?.stop();
  await untrusted?.stop();
  await new Promise((r) => hooks?.close(r));
  await otlp?.close();
  await t?.close();
  await pg?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Waits (the exporter sends in batches, every few seconds) until `pick` finds a span. */
async function spanWhere(pick: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan | undefined> {
  for (let i = 0; i < 200; i++) {
    const found = otlp.spans.find(pick);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

describe("the Next side's traces (next start with OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("an API route's server span reaches the receiver, continuing the trusted proxy's traceparent", async () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parentId = "b7ad6b7169203331";
    const res = await fetch(`${base}/limits`, { headers: { traceparent: traceparent(traceId, parentId) } });
    expect(res.status).toBe(200);
    const span = await spanWhere((s) => s.traceId === traceId && s.parentSpanId === parentId);
    expect(span, `spans: ${otlp.spans.map((s) => s.name).join(", ")}\n${out}`).toMatchObject({
      kind: SERVER,
      service: "dropsite-next-test",
    });
    expect(span!.name).toContain("GET");
    expect(otlp.contentTypes.every((c) => c === "application/x-protobuf")).toBe(true);
  });

  it("a deploy's webhook delivery is a webhook.deliver span with its event, outcome, and a link to the deploy's trace", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const created = await fetch(`${base}/webhooks`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json" },
      body: JSON.stringify({ url: hookUrl, events: ["drop.deployed"] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id: webhookId } = (await created.json()) as { id: string };

    const deployTrace = "5b8efff798038103d269b633813fc60c";
    const deployed = await fetch(`${base}/deploy`, {
      method: "POST",
      headers: {
        ...bearer(apiKey),
        "content-type": "text/html",
        traceparent: traceparent(deployTrace, "eee19b7ec3c1b174"),
      },
      body: "<h1>traced</h1>",
    });
    expect(deployed.status, await deployed.clone().text()).toBe(200);

    const deadline = Date.now() + 15_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received, out).toHaveLength(1);
    const eventId = received[0]!.webhookId;

    const deliver = await spanWhere((s) => s.name === "webhook.deliver");
    expect(deliver, `spans: ${otlp.spans.map((s) => s.name).join(", ")}\n${out}`).toBeDefined();
    expect(deliver!.attributes).toMatchObject({
      "dropsite.webhook.event_type": "drop.deployed",
      "dropsite.webhook.event_id": eventId,
      "dropsite.webhook.id": webhookId,
      "dropsite.webhook.attempt": 1,
      "dropsite.webhook.outcome": "ok",
      "http.response.status_code": 204,
    });
    // A trace of its own, linked to a span of the deploy's request.
    expect(deliver!.parentSpanId).toBe("");
    expect(deliver!.traceId).not.toBe(deployTrace);
    expect(deliver!.links.map((l) => l.traceId)).toEqual([deployTrace]);
    const linked = await spanWhere((s) => s.spanId === deliver!.links[0]!.spanId);
    expect(linked?.traceId).toBe(deployTrace);
    // The deploy's database and storage work are spans of its trace (lib/tracing's, under Next's).
    expect(
      await spanWhere((s) => s.traceId === deployTrace && s.attributes["db.system.name"] === "postgresql"),
    ).toBeDefined();
    expect(await spanWhere((s) => s.traceId === deployTrace && s.name === "storage.put")).toBeDefined();
  });
});

describe("without TRUST_PROXY", () => {
  it("an incoming traceparent is not continued: the request starts a trace of its own", async () => {
    untrusted = await startNext({ TRUST_PROXY: "0", OTEL_SERVICE_NAME: "dropsite-untrusted" });
    const other = untrusted.base;
    const traceId = "1c0ffee0d15ea5e0aaaabbbbccccdddd";
    // An API route the readiness polls do not ask for (its answer: 401, no key).
    const res = await fetch(`${other}/drops`, { headers: { traceparent: traceparent(traceId, "00f067aa0ba902b7") } });
    expect(res.status).toBe(401);
    const span = await spanWhere(
      (s) => s.service === "dropsite-untrusted" && s.kind === SERVER && s.name.includes("/drops"),
    );
    expect(span, `spans: ${otlp.spans.map((s) => `${s.service} ${s.name}`).join(", ")}`).toBeDefined();
    expect(span!.parentSpanId).toBe("");
    expect(span!.traceId).not.toBe(traceId);
    expect(otlp.spans.some((s) => s.traceId === traceId)).toBe(false);
  }, 120_000);
});
