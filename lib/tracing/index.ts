import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Context, Span, SpanContext, SpanKind, Tracer } from "@opentelemetry/api";
import type { IncomingHttpHeaders } from "node:http";
import type { Env } from "../env";

// OpenTelemetry traces of the self-hosted server, on when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set and OTEL_SDK_DISABLED is not true: the Node SDK
// with an OTLP exporter (HTTP, protobuf), loaded by startTracing() through dynamic imports, so
// with tracing off no SDK or exporter module loads and every function here returns at once.
// The listener opens one server span per request (lib/plane/log.ts), named `<METHOD> <route>`
// once the route is known; database queries (lib/db/client.ts) and storage calls
// (lib/storage/guard.ts) are its children; webhook deliveries run in traces of their own.
// The provider is registered globally, so Next's own spans (it uses @opentelemetry/api) nest
// under the request's span in the same process. Where server.mjs does not run (`next start`,
// Vercel), instrumentation.ts calls startNextTracing(): @vercel/otel, with the same endpoint
// (tracesEndpoint decides for both) and the same rule for an incoming traceparent.

interface Tracing {
  api: typeof OtelApi;
  tracer: Tracer;
  trustProxy: boolean;
  shutdown: () => Promise<void>;
}

const KEY = Symbol.for("dropsite.tracing");
const slot = globalThis as unknown as Record<symbol, Tracing | undefined>;

/** The traces endpoint the configuration names, or undefined when tracing is off. */
export function tracesEndpoint(e: Env): string | undefined {
  if (e.OTEL_SDK_DISABLED) return undefined;
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (e.OTEL_EXPORTER_OTLP_ENDPOINT) return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return undefined;
}

/** Starts the SDK when the configuration asks for traces; false (and nothing loaded) otherwise. */
export async function startTracing(e: Env): Promise<boolean> {
  if (slot[KEY]) return true;
  const url = tracesEndpoint(e);
  if (url === undefined) return false;
  const [api, node, base, exporter, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": e.OTEL_SERVICE_NAME }),
    spanProcessors: [new base.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url }))],
  });
  provider.register();
  slot[KEY] = {
    api,
    tracer: api.trace.getTracer("dropsite"),
    trustProxy: e.TRUST_PROXY,
    shutdown: () => provider.shutdown(),
  };
  return true;
}

/**
 * The Next side's traces where server.mjs has not started the SDK (`next start`, Vercel):
 * @vercel/otel's registerOTel with an OTLP/HTTP protobuf exporter to tracesEndpoint(). Next's
 * own server span then continues an incoming traceparent only with TRUST_PROXY (with it off no
 * propagator is registered, so none is read). False, and nothing loaded, when tracing is off.
 */
export async function startNextTracing(e: Env): Promise<boolean> {
  if (slot[KEY]) return true;
  const url = tracesEndpoint(e);
  if (url === undefined) return false;
  const [api, { registerOTel }, exporter] = await Promise.all([
    import("@opentelemetry/api"),
    import("@vercel/otel"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  registerOTel({
    serviceName: e.OTEL_SERVICE_NAME,
    traceExporter: new exporter.OTLPTraceExporter({ url }),
    propagators: e.TRUST_PROXY ? ["tracecontext"] : ["none"],
  });
  const provider = api.trace.getTracerProvider() as { getDelegate?: () => { shutdown?: () => Promise<void> } };
  slot[KEY] = {
    api,
    tracer: api.trace.getTracer("dropsite"),
    trustProxy: e.TRUST_PROXY,
    shutdown: async () => provider.getDelegate?.().shutdown?.(),
  };
  return true;
}

/** The span context of the span running now (to link later work to it), if tracing is on and one is. */
export function currentSpanContext(): SpanContext | undefined {
  const t = slot[KEY];
  if (!t) return undefined;
  const span = t.api.trace.getSpan(t.api.context.active());
  return span && t.api.trace.isSpanContextValid(span.spanContext()) ? span.spanContext() : undefined;
}

/**
 * The span running now as a W3C `traceparent` (`00-<trace>-<span>-<flags>`), to keep with work
 * that outlives the request (a webhook event's deliveries link to it whoever delivers them).
 */
export function currentTraceParent(): string | undefined {
  const c = currentSpanContext();
  return c && `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a kept `traceparent` names (a link's target), or undefined for none or a malformed one. */
export function spanContextOf(traceParent: string | null | undefined): SpanContext | undefined {
  const m = traceParent ? TRACE_PARENT.exec(traceParent) : null;
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
}

/** Sends the spans still buffered and stops the SDK (tests, shutdown). */
export async function stopTracing(): Promise<void> {
  const t = slot[KEY];
  slot[KEY] = undefined;
  if (!t) return;
  await t.shutdown();
  t.api.trace.disable();
  t.api.context.disable();
  t.api.propagation.disable();
}

/** A request's server span and the context its work runs in. */
export interface RequestSpan {
  span: Span;
  context: Context;
}

/**
 * Opens the server span of one request (named by its method until the route is known). An
 * incoming W3C `traceparent` continues its trace only behind a trusted proxy (TRUST_PROXY).
 */
export function startRequestSpan(method: string, headers: IncomingHttpHeaders): RequestSpan | undefined {
  const t = slot[KEY];
  if (!t) return undefined;
  const { api } = t;
  const parent =
    t.trustProxy && headers.traceparent !== undefined
      ? api.propagation.extract(api.ROOT_CONTEXT, headers)
      : api.ROOT_CONTEXT;
  const span = t.tracer.startSpan(
    method,
    { kind: api.SpanKind.SERVER, attributes: { "http.request.method": method } },
    parent,
  );
  return { span, context: api.trace.setSpan(parent, span) };
}

/**
 * Names and ends a request's server span: `<METHOD> <route>`, with its status and the HTTP
 * semantic conventions' required `url.path` (as logged: no query, no token) and `url.scheme`.
 */
export function endRequestSpan(
  r: RequestSpan,
  method: string,
  route: string,
  status: number,
  url: { path: string; scheme: string },
): void {
  r.span.updateName(`${method} ${route}`);
  r.span.setAttribute("http.route", route);
  r.span.setAttribute("url.path", url.path);
  r.span.setAttribute("url.scheme", url.scheme);
  r.span.setAttribute("http.response.status_code", status);
  if (status >= 500) r.span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
  r.span.end();
}

/** Runs `fn` inside a request's span (so the spans it starts are its children); `fn()` when tracing is off. */
export function inRequestSpan<T>(r: RequestSpan | undefined, fn: () => T): T {
  const t = slot[KEY];
  if (!t || !r) return fn();
  return t.api.context.with(r.context, fn);
}

/**
 * Runs `fn` in a child span of the current one (`kind` internal unless given), ended when its
 * promise settles; a failure is recorded on it. `root` starts a trace of its own, with `links`
 * to the spans that caused it. `fn` gets the span (to add what it learns). Tracing off, or
 * outside any trace: `fn(undefined)`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  opts: { kind?: SpanKind; root?: boolean; links?: SpanContext[] } = {},
): Promise<T> {
  const t = slot[KEY];
  if (!t) return fn(undefined);
  const { api } = t;
  const active = api.context.active();
  if (!opts.root && api.trace.getSpan(active) === undefined) return fn(undefined);
  const parent = opts.root ? api.ROOT_CONTEXT : active;
  const links = opts.links?.map((context) => ({ context }));
  const span = t.tracer.startSpan(name, { kind: opts.kind, attributes, links }, parent);
  return api.context.with(api.trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: 2 });
      throw err;
    } finally {
      span.end();
    }
  });
}
