import { connect, type Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

// What Neon runs in front of Postgres, in miniature: each WebSocket carries one Postgres
// connection's raw bytes to the TCP address in `?address=host:port`. The production driver
// (@neondatabase/serverless Pool) reaches a local server through it with
// neonConfig.wsProxy = proxy.wsProxy. Loopback targets only: this is no open relay.

export interface NeonWsProxy {
  port: number;
  /** For neonConfig.wsProxy / openDb({neonWsProxy}). */
  wsProxy: (host: string, port: number | string) => string;
  /** Connections accepted so far (lets tests prove traffic went through the proxy). */
  readonly connections: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

export async function startNeonWsProxy(): Promise<NeonWsProxy> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  const sockets = new Set<Socket>();
  let connections = 0;

  wss.on("connection", (ws: WebSocket, req) => {
    const address = new URL(req.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    const sep = address.lastIndexOf(":");
    const host = address.slice(0, sep);
    const port = Number(address.slice(sep + 1));
    if (!LOOPBACK.has(host) || !Number.isInteger(port)) {
      ws.close(1008, "address must be a loopback host:port");
      return;
    }
    connections++;
    const tcp = connect(port, host);
    sockets.add(tcp);
    tcp.on("data", (chunk) => ws.send(chunk));
    tcp.on("close", () => {
      sockets.delete(tcp);
      ws.close();
    });
    tcp.on("error", () => ws.close());
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    ws.on("close", () => tcp.end());
    ws.on("error", () => tcp.destroy());
  });

  const { port } = wss.address() as { port: number };
  return {
    port,
    wsProxy: (host, targetPort) => `127.0.0.1:${port}/v1?address=${host}:${targetPort}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
