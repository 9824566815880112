import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch, listenerOptions, logRequest, traced } from "@/lib/plane/node";
import { env } from "@/lib/env";
import { startTracing, stopTracing, tracesEndpoint } from "@/lib/tracing";
import { makeTestContext, TEST_SERVE_DOMAIN, type TestContext } from "../support/context";
import { requestAt } from "../support/app-server";
import { freePort } from "../support/net";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { accountWithKey, bearer } from "../support/accounts";
import { createWebhook } from "@/lib/webhooks/manage";
import { deliverDue } from "@/lib/webhooks/deliver";

// OpenTelemetry traces of the self-hosted listener, sent over OTLP/HTTP protobuf to a local
// receiver: one server span per request named `<METHOD> <route>`, the database queries and
// storage calls it made as its descendants, and a trace continued from an incoming traceparent
// behind a trusted proxy.

const APP = "localhost:3000";
const SERVER = 2; // SpanKind.SERVER in OTLP (SPAN_KIND_SERVER)

let receiver: OtlpReceiver;
let t: TestContext;
let server: Server;
let port: number;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  t = await makeTestContext({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    TRUST_PROXY: "1",
    WEBHOOKS_ALLOW_PRIVATE: "1",
  });
  expect(await startTracing(env())).toBe(true);
  server = createServer(listenerOptions, (req, res) => {
    logRequest(req, res);
    traced(req, () => {
      if (!dispatch(req, res)) res.writeHead(404).end();
    });
  });
  port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
});
afterAll(async () => {
  await stopTracing();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await t?.close();
  await receiver?.close();
});

/** Waits until the receiver has the spans `pick` wants (the SDK exports in batches). */
async function spansOf(traceId: string, enough: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    if (enough(spans)) return spans;
    await new Promise((r) => setTimeout(r, 100));
  }
  return receiver.spans.filter((s) => s.traceId === traceId);
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descends(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  for (let s: ReceivedSpan | undefined = span, i = 0; s && i < 20; i++) {
    if (s.parentSpanId === ancestor.spanId) return true;
    s = spans.find((x) => x.spanId === s!.parentSpanId);
  }
  return false;
}

describe("configuration", () => {
  it("is on with either endpoint and off with OTEL_SDK_DISABLED=true", () => {
    const base = env();
    expect(tracesEndpoint({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toBe("http://c:4318/v1/traces");
    expect(
      tracesEndpoint({
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/traces",
      }),
    ).toBe("http://c:4318/traces");
    expect(tracesEndpoint({ ...base, OTEL_SDK_DISABLED: true })).toBeUndefined();
    expect(
      tracesEndpoint({
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      }),
    ).toBeUndefined();
  });
});

describe("a request is one server span with its database and storage work beneath it", () => {
  it("a deploy: `POST deploy.html`, a database child with db.system.name, a storage.put child", async () => {
    const html = "<!doctype html><title>traced</title>";
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    const res = await requestAt(port, APP, "/deploy", {
      method: "POST",
      headers: {
        "content-type": "text/html",
        "content-length": String(Buffer.byteLength(html)),
        // Behind a trusted proxy (TRUST_PROXY), the proxy's trace is continued.
        traceparent: `00-${traceId}-${parentId}-01`,
      },
      body: html,
    });
    expect(res.status).toBe(200);
    const spans = await spansOf(
      traceId,
      (s) => s.some((x) => x.name === "POST deploy.html") && s.some((x) => x.name === "storage.put"),
    );
    const root = spans.find((s) => s.name === "POST deploy.html");
    expect(root).toMatchObject({
      kind: SERVER,
      parentSpanId: parentId,
      service: "dropsite",
      attributes: {
        "http.route": "deploy.html",
        "http.response.status_code": 200,
        // The HTTP semantic conventions' required attributes: an operator finds a trace by its path.
        "url.path": "/deploy",
        "url.scheme": "http",
      },
    });
    const db = spans.filter((s) => s.attributes["db.system.name"] === "postgresql");
    expect(db.length).toBeGreaterThan(0);
    expect(db.every((s) => descends(s, root!, spans))).toBe(true);
    const put = spans.find((s) => s.name === "storage.put");
    expect(put?.attributes).toMatchObject({ "dropsite.storage.op": "put", "dropsite.storage.store": "fs" });
    expect(descends(put!, root!, spans)).toBe(true);
    expect(receiver.contentTypes.every((c) => c === "application/x-protobuf")).toBe(true);

    // A view of the new drop, in a trace of its own: the manifest's query and the content's read.
    const { slug } = res.json() as { slug: string };
    // Behind the trusted proxy, the scheme is the one the proxy says the client used.
    const view = await requestAt(port, `${slug}.${TEST_SERVE_DOMAIN}`, "/?utm=x", {
      headers: { "x-forwarded-proto": "https" },
    });
    expect(view.status).toBe(200);
    let viewSpans: ReceivedSpan[] = [];
    for (let i = 0; i < 100 && !viewSpans.some((s) => s.name === "GET serve.drop"); i++) {
      viewSpans = receiver.spans.filter((s) => s.name === "GET serve.drop");
      await new Promise((r) => setTimeout(r, 100));
    }
    const viewRoot = viewSpans.find((s) => s.name === "GET serve.drop");
    expect(viewRoot?.parentSpanId).toBe("");
    expect(viewRoot?.attributes).toMatchObject({ "url.path": "/", "url.scheme": "https" });
    expect(viewRoot?.traceId).not.toBe(traceId);
    const inView = await spansOf(viewRoot!.traceId, (s) => s.some((x) => x.name === "storage.get"));
    expect(inView.some((s) => s.attributes["db.system.name"] === "postgresql")).toBe(true);
    expect(inView.some((s) => s.name === "storage.get")).toBe(true);
  });
});

describe("a webhook delivery links to the request that recorded its event, whoever delivers it", () => {
  it("the self-hosted worker's pass (not the request's own after()) links to the deploy's span", async () => {
    const hook = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    try {
      const { account, apiKey } = await accountWithKey(t.ctx);
      const hookPort = (hook.address() as { port: number }).port;
      await createWebhook(t.ctx, account, { url: `http://127.0.0.1:${hookPort}/in`, events: ["drop.deployed"] });
      const traceId = "7d3efb1b173fecfa1c4f1fd6b1a5b0a4";
      const html = "<!doctype html><title>hooked</title>";
      // Through the data plane: no after() runs there, so only a later pass delivers the event.
      const res = await requestAt(port, APP, "/deploy", {
        method: "POST",
        headers: {
          ...bearer(apiKey),
          "content-type": "text/html",
          "content-length": String(Buffer.byteLength(html)),
          traceparent: `00-${traceId}-a3ce929d0e0e4736-01`,
        },
        body: html,
      });
      expect(res.status).toBe(200);
      // The worker's tick, outside any request's span.
      expect(await deliverDue(t.ctx, 10_000)).toMatchObject({ delivered: 1 });
      const deploySpans = await spansOf(traceId, (s) => s.some((x) => x.name === "POST deploy.html"));
      const deploy = deploySpans.find((s) => s.name === "POST deploy.html")!;
      let deliver: ReceivedSpan | undefined;
      for (let i = 0; i < 100 && !deliver; i++) {
        deliver = receiver.spans.find(
          (s) => s.name === "webhook.deliver" && s.links.some((l) => l.traceId === traceId),
        );
        if (!deliver) await new Promise((r) => setTimeout(r, 100));
      }
      expect(deliver, receiver.spans.map((s) => s.name).join(", ")).toBeDefined();
      expect(deliver!.traceId).not.toBe(traceId);
      expect(deliver!.parentSpanId).toBe("");
      // The link names a span of the deploy's own trace, under its server span.
      const linked = deploySpans.find((s) => s.spanId === deliver!.links[0]!.spanId);
      expect(linked).toBeDefined();
      expect(linked === deploy || descends(linked!, deploy, deploySpans)).toBe(true);
    } finally {
      await new Promise((r) => hook.close(r));
    }
  });
});
