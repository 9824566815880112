import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { lookup } from "node:dns/promises";
import { resolveTarget, type Resolved } from "../webhooks/address";

// The checking browser's only way out (containment below the page). Chromium is started with
// --proxy-server pointing here and --proxy-bypass-list=<-loopback>, so every request the page
// can make (navigations and their redirect hops, subresources, fetch, beacons, WebSockets,
// EventSource, frames, workers) arrives here as a plain HTTP request or a CONNECT tunnel. Each
// host is resolved and checked before connecting, and the connection goes to the address
// checked, so a DNS answer cannot change in between: the drop hosts of this service connect
// wherever they resolve, every other host only to public addresses (the webhook rules of
// lib/webhooks/address.ts), and the app host never.

/** Which hosts the checking browser may reach, and how. */
export interface ReachRule {
  /** The app host (BASE_URL): never reached. Lower-case host name and port. */
  appHost: { hostname: string; port: number };
  /** SERVE_DOMAIN's host name: <label>.<it> are the service's drop hosts. */
  serveHost: string;
  /** SERVE_DOMAIN's port, or null for the scheme's defaults (80, 443). */
  servePort: number | null;
}

/** Lower-case, without brackets or a trailing dot. */
function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

/**
 * Whether host:port is one of the service's drop hosts (<slug> and vanity names under
 * SERVE_DOMAIN, whose DNS is the operator's). A custom domain's DNS is its owner's: it is reached
 * under the public-address rule like any other host.
 */
export function isOwnHost(rule: ReachRule, rawHost: string, port: number): boolean {
  const host = normalHost(rawHost);
  if (host === rule.appHost.hostname && port === rule.appHost.port) return false;
  if (!host.endsWith(`.${rule.serveHost}`)) return false;
  return rule.servePort === null ? port === 80 || port === 443 : port === rule.servePort;
}

/**
 * Where the browser may connect for host:port: the service's own hosts wherever they resolve
 * (a *.localhost name to loopback, RFC 6761), any other host only when every address it has is
 * public. Throws an Error saying why otherwise.
 */
export async function reachable(rule: ReachRule, rawHost: string, port: number): Promise<Resolved> {
  const host = normalHost(rawHost);
  if (host === rule.appHost.hostname && port === rule.appHost.port)
    throw new Error(`the app host ${host}:${port} is not reachable from a render check`);
  if (isOwnHost(rule, host, port)) {
    if (host === "localhost" || host.endsWith(".localhost")) return { address: "127.0.0.1", family: 4 };
    const literal = isIP(host);
    if (literal) return { address: host, family: literal === 6 ? 6 : 4 };
    const first = await lookup(host);
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
  return resolveTarget(new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`), false);
}

/** The hop-by-hop headers a proxy does not pass on (RFC 9110 §7.6.1), plus Proxy-Connection. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export interface ContainmentProxy {
  port: number;
  /** Hosts refused so far, newest last (kept short): for tests and logs. */
  refused: string[];
  close(): Promise<void>;
}

const REFUSED_KEPT = 200;

/** Starts the proxy on a loopback port; `rule()` is read per request. */
export async function startContainmentProxy(rule: () => ReachRule): Promise<ContainmentProxy> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const refuse = (what: string) => {
    refused.push(what);
    if (refused.length > REFUSED_KEPT) refused.shift();
  };
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  };

  const server: Server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? "");
      if (target.protocol !== "http:") throw new Error("not http");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const port = Number(target.port || 80);
    reachable(rule(), target.hostname, port).then(
      (to) => {
        const headers: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) headers[k] = v;
        const upstream = httpRequest(
          {
            host: to.address,
            family: to.family,
            port,
            method: req.method,
            path: `${target.pathname}${target.search}`,
            headers,
            setHost: false,
          },
          (up) => {
            const out: Record<string, string | string[]> = {};
            for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) out[k] = v;
            res.writeHead(up.statusCode ?? 502, out);
            up.pipe(res);
          },
        );
        upstream.on("error", () => res.destroy());
        res.on("close", () => upstream.destroy());
        req.pipe(upstream);
      },
      (err: unknown) => {
        refuse(`${target.hostname}:${port}`);
        res.writeHead(403, { "content-type": "text/plain" }).end(err instanceof Error ? err.message : "refused");
      },
    );
  });

  // HTTPS and secure WebSockets: a tunnel to the checked address.
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? "");
    if (!m) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const host = m[1]!;
    const port = Number(m[2]);
    reachable(rule(), host, port).then(
      (to) => {
        const upstream = connect({ host: to.address, port, family: to.family }, () => {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        track(upstream);
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
        client.on("close", () => upstream.destroy());
      },
      () => {
        refuse(`${normalHost(host)}:${port}`);
        client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      },
    );
  });

  // Plain WebSockets sent to the proxy in absolute form: the same check, then the raw upgrade.
  server.on("upgrade", (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const port = Number(target.port || 80);
    reachable(rule(), target.hostname, port).then(
      (to) => {
        const upstream = connect({ host: to.address, port, family: to.family }, () => {
          const lines = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`];
          for (let i = 0; i < req.rawHeaders.length; i += 2) {
            const name = req.rawHeaders[i]!;
            if (name.toLowerCase() !== "proxy-connection") lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
          }
          upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        track(upstream);
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
      },
      () => {
        refuse(`${target.hostname}:${port}`);
        client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      },
    );
  });
  server.on("connection", track);

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the render proxy has no port");
  return {
    port: address.port,
    refused,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
