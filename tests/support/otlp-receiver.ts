import { createServer, type Server } from "node:http";
import { ProtobufReader } from "@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader";
import { freePort } from "./net";

// A local OpenTelemetry collector stand-in: POST /v1/traces with an OTLP/HTTP protobuf body
// (ExportTraceServiceRequest, opentelemetry-proto trace/v1), decoded with the protobuf reader of
// OpenTelemetry's own otlp-transformer package into the fields the tests read.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  service: string | undefined;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
  close(): Promise<void>;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Reads the messages of a length-delimited field: calls `field` for each (number, wire type). */
function message(buf: Uint8Array, field: (r: ProtobufReader, n: number, wireType: number) => boolean): void {
  const r = new ProtobufReader(buf);
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag();
    if (!field(r, fieldNumber, wireType)) r.skip(wireType);
  }
}

function anyValue(buf: Uint8Array): string | number | boolean {
  let out: string | number | boolean = "";
  message(buf, (r, n) => {
    if (n === 1) out = r.readString();
    else if (n === 2) out = r.readVarint() !== 0;
    else if (n === 3) out = r.readVarint();
    else return false;
    return true;
  });
  return out;
}

function keyValue(buf: Uint8Array, into: Record<string, string | number | boolean>): void {
  let key = "";
  let value: string | number | boolean = "";
  message(buf, (r, n) => {
    if (n === 1) key = r.readString();
    else if (n === 2) value = anyValue(r.readBytes());
    else return false;
    return true;
  });
  into[key] = value;
}

function span(buf: Uint8Array, service: string | undefined): ReceivedSpan {
  const s: ReceivedSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    name: "",
    kind: 0,
    attributes: {},
    links: [],
    service,
  };
  message(buf, (r, n) => {
    if (n === 1) s.traceId = hex(r.readBytes());
    else if (n === 2) s.spanId = hex(r.readBytes());
    else if (n === 4) s.parentSpanId = hex(r.readBytes());
    else if (n === 5) s.name = r.readString();
    else if (n === 6) s.kind = r.readVarint();
    else if (n === 9) keyValue(r.readBytes(), s.attributes);
    else if (n === 13) {
      const link = { traceId: "", spanId: "" };
      message(r.readBytes(), (lr, ln) => {
        if (ln === 1) link.traceId = hex(lr.readBytes());
        else if (ln === 2) link.spanId = hex(lr.readBytes());
        else return false;
        return true;
      });
      s.links.push(link);
    } else return false;
    return true;
  });
  return s;
}

function exportRequest(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  message(body, (r, n) => {
    if (n !== 1) return false;
    // ResourceSpans: resource (1), scope_spans (2).
    const resourceAttrs: Record<string, string | number | boolean> = {};
    const scopeSpans: Uint8Array[] = [];
    message(r.readBytes(), (rr, rn) => {
      if (rn === 1)
        message(rr.readBytes(), (ar, an) => {
          if (an !== 1) return false;
          keyValue(ar.readBytes(), resourceAttrs);
          return true;
        });
      else if (rn === 2) scopeSpans.push(rr.readBytes());
      else return false;
      return true;
    });
    const service = typeof resourceAttrs["service.name"] === "string" ? resourceAttrs["service.name"] : undefined;
    for (const ss of scopeSpans)
      message(ss, (sr, sn) => {
        if (sn !== 2) return false;
        out.push(span(sr.readBytes(), service));
        return true;
      });
    return true;
  });
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
      contentTypes.push(req.headers["content-type"] ?? "");
      spans.push(...exportRequest(new Uint8Array(Buffer.concat(chunks))));
      // An empty ExportTraceServiceResponse.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
