import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A local stand-in of Google Web Risk's REST API, `GET /v1/uris:search?uri=…&threatTypes=…&key=…`,
// as documented (https://cloud.google.com/web-risk/docs/reference/rest/v1/uris/search): `{}` for
// a URL it knows nothing against, `{"threat": {"threatTypes": [...], "expireTime": "…"}}` for a
// listed one (only the asked-for types), 400 without uri or threatTypes, 403 for a wrong key.
// `mode` turns it into an outage: 503 answers, or answers that never come.

export interface WebRiskStandin {
  /** The value of WEB_RISK_API_URL. */
  url: string;
  key: string;
  /** Lists a URL (exactly as looked up) under threat types. */
  list(uri: string, threatTypes: string[]): void;
  mode: "ok" | "error" | "hang";
  /** Every uri looked up, in order. */
  lookups: string[];
  close(): Promise<void>;
}

export async function startWebRiskStandin(key = "test-web-risk-key"): Promise<WebRiskStandin> {
  const listed = new Map<string, string[]>();
  const lookups: string[] = [];
  const hanging = new Set<ServerResponse>();
  const standin: WebRiskStandin = {
    url: "",
    key,
    list: (uri, types) => void listed.set(uri, types),
    mode: "ok",
    lookups,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://standin");
    if (req.method !== "GET" || url.pathname !== "/v1/uris:search")
      return send(res, 404, { error: { code: 404, message: "not found", status: "NOT_FOUND" } });
    const uri = url.searchParams.get("uri");
    const types = url.searchParams.getAll("threatTypes");
    if (uri !== null) lookups.push(uri);
    if (standin.mode === "hang") {
      hanging.add(res);
      return;
    }
    if (standin.mode === "error")
      return send(res, 503, {
        error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" },
      });
    if (url.searchParams.get("key") !== key)
      return send(res, 403, { error: { code: 403, message: "API key not valid.", status: "PERMISSION_DENIED" } });
    if (!uri || types.length === 0)
      return send(res, 400, {
        error: { code: 400, message: "uri and threatTypes are required", status: "INVALID_ARGUMENT" },
      });
    const found = (listed.get(uri) ?? []).filter((t) => types.includes(t));
    if (found.length === 0) return send(res, 200, {});
    send(res, 200, { threat: { threatTypes: found, expireTime: new Date(Date.now() + 300_000).toISOString() } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standin;
}
