import { createServer, request, type Server } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch, listenerOptions } from "@/lib/plane/node";
import { resetEnv } from "@/lib/env";
import { JSON_BODY_CAP } from "@/lib/http";
import { freePort } from "../support/net";

// The data plane's listener in front of a stand-in for Next that reads whole bodies: what it
// refuses never reaches the framework, and what it passes arrives intact.

let server: Server;
let port: number;
let reachedNext = 0;

beforeAll(async () => {
  process.env.BASE_URL = "http://localhost:3000";
  process.env.SERVE_DOMAIN = "drops.localhost:3000";
  resetEnv();
  server = createServer(listenerOptions, (req, res) => {
    if (dispatch(req, res)) return;
    reachedNext++;
    if (req.url === "/echo-host")
      return void res.writeHead(200, { "content-type": "text/plain" }).end(`host=${req.headers.host ?? "(none)"}`);
    if (req.url === "/echo-authorization")
      return void res.writeHead(200, { "content-type": "text/plain" }).end(req.headers.authorization ?? "(none)");
    let n = 0;
    req.on("data", (c: Buffer) => (n += c.length));
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.url} ${n}`));
    req.on("error", () => undefined);
  });
  port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

function post(pathname: string, body: Buffer, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: "localhost:3000" };
    if (!chunked) headers["content-length"] = body.length;
    // A connection of its own: one the listener hung up on after a 413 is never reused.
    const req = request({ host: "127.0.0.1", port, path: pathname, method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    // Chunked: several writes, so the body really arrives in pieces.
    for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.subarray(i, i + 16 * 1024));
    req.end();
  });
}

function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    let out = "";
    sock.on("data", (d: Buffer) => (out += d.toString("latin1")));
    sock.on("close", () => resolve(out));
    sock.on("error", () => resolve(out));
    sock.write(text);
  });
}

describe("repeated headers reach every path as sent", () => {
  it("two Authorization headers arrive joined (the Fetch API's form), so the one credential parser sees both", async () => {
    const res = await raw(
      "GET /echo-authorization HTTP/1.1\r\nHost: localhost:3000\r\nAuthorization: Bearer sp_a\r\nAuthorization: Bearer sp_b\r\nConnection: close\r\n\r\n",
    );
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    expect(res).toContain("\r\nBearer sp_a, Bearer sp_b\r\n");
  });
});

describe("bodies past the route's cap never reach the framework", () => {
  it("on /mcp the refusal is a JSON-RPC error object with id null (declared or chunked), never the REST envelope", async () => {
    const before = reachedNext;
    const declared = await raw(
      "POST /mcp HTTP/1.1\r\nHost: localhost:3000\r\nContent-Type: application/json\r\nContent-Length: 11534336\r\nConnection: close\r\n\r\n",
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    const body = JSON.parse(declared.slice(declared.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringContaining("bytes") },
    });
    const chunked = await post("/mcp", Buffer.alloc(11 * 1024 * 1024, 32), true);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    // The chunked one reached the stand-in for Next, cut: it read at most the cap.
    expect(reachedNext - before).toBeLessThanOrEqual(1);
  });

  it("a chunked body over the cap is cut with 413; one under it passes whole", async () => {
    const before = reachedNext;
    const ok = await post("/claim", Buffer.alloc(JSON_BODY_CAP, 1), true);
    expect(ok).toEqual({ status: 200, text: `/claim ${JSON_BODY_CAP}` });
    const over = await post("/claim", Buffer.alloc(JSON_BODY_CAP * 3, 1), true);
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text).code).toBe("payload_too_large");
    expect(reachedNext - before).toBe(2);
  });

  it("a chunked body that never ends is cut at the cap: 413, and the listener closes the connection while the client still sends", async () => {
    const before = reachedNext;
    const sock = connect(port, "127.0.0.1");
    let out = "";
    sock.on("data", (d: Buffer) => (out += d.toString("latin1")));
    sock.on("error", () => undefined);
    const closed = new Promise<number>((resolve) => sock.on("close", () => resolve(Date.now())));
    sock.write(
      "POST /claim HTTP/1.1\r\nHost: localhost:3000\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    // 16 KB every 10 ms, and never the last chunk: past the 64 KB cap within a few writes.
    const chunk = Buffer.concat([Buffer.from("4000\r\n"), Buffer.alloc(0x4000, 32), Buffer.from("\r\n")]);
    const started = Date.now();
    const writer = setInterval(() => {
      if (!sock.destroyed && sock.writable) sock.write(chunk);
    }, 10);
    const end = await closed;
    clearInterval(writer);
    expect(out).toMatch(/^HTTP\/1\.1 413/);
    expect(out).toContain('"code":"payload_too_large"');
    // hangUp: a FIN once the answer is out, a hard close 2 s later if the client keeps sending.
    expect(end - started).toBeLessThan(10_000);
    // The stand-in for Next got the request, and never its end (it would answer 200 to that).
    expect(reachedNext - before).toBe(1);
    expect(out).not.toContain("200 OK");
  });

  it("a declared length over the cap is answered at once, before any byte of the body", async () => {
    const before = reachedNext;
    const res = await raw(
      "POST /claim HTTP/1.1\r\nHost: localhost:3000\r\nContent-Length: 62914560\r\nConnection: close\r\n\r\n",
    );
    expect(res).toMatch(/^HTTP\/1\.1 413/);
    expect(res).toContain('"code":"payload_too_large"');
    expect(reachedNext).toBe(before);
  });

  it("the routes outside the API (the dashboard's, NextAuth's, the OAuth server's) are held to their caps too", async () => {
    for (const pathname of ["/dashboard/connect/u1/decide", "/api/auth/callback/email", "/api/oauth/register"]) {
      const before = reachedNext;
      expect(await post(pathname, Buffer.alloc(1024, 1), false)).toEqual({ status: 200, text: `${pathname} 1024` });
      const over = await post(pathname, Buffer.alloc(JSON_BODY_CAP + 1, 1), false);
      expect(over.status, pathname).toBe(413);
      expect(JSON.parse(over.text).code).toBe("payload_too_large");
      expect(reachedNext - before).toBe(1);
    }
  });

  it("routes without a listed cap pass to the framework", async () => {
    const res = await post("/somewhere", Buffer.alloc(200 * 1024, 1), false);
    expect(res).toEqual({ status: 200, text: `/somewhere ${200 * 1024}` });
  });
});

describe("request targets", () => {
  it("an absolute-form target reaches the framework in origin form (its path and query)", async () => {
    const res = await raw(
      "GET http://localhost:3000/limits?x=1 HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n",
    );
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    expect(res).toContain("/limits?x=1 0");
  });
  it("an absolute-form target is served for the host it names, not the Host header (RFC 9112 3.2.2)", async () => {
    // The request line names the app host; the Host header a drop host: the app answers, and
    // what it reads as the host is the request line's.
    const before = reachedNext;
    const app = await raw(
      "GET http://localhost:3000/echo-host HTTP/1.1\r\nHost: mydrop.drops.localhost:3000\r\nConnection: close\r\n\r\n",
    );
    expect(app).toMatch(/^HTTP\/1\.1 200/);
    expect(app).toContain("host=localhost:3000");
    expect(reachedNext).toBe(before + 1);
    // The request line names a (malformed) drop host, the Host header the app: the data plane
    // answers it as that host (its 404 page), never the app.
    const drop = await raw(
      "GET http://a.b.drops.localhost:3000/echo-host HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n",
    );
    expect(drop).toMatch(/^HTTP\/1\.1 404/);
    expect(drop).not.toContain("host=");
    expect(reachedNext).toBe(before + 1);
  });

  it("a malformed escape on the app host is a 400 envelope", async () => {
    const res = await raw("GET /%zz HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n");
    expect(res).toMatch(/^HTTP\/1\.1 400/);
    expect(res).toContain('"code":"invalid_request"');
  });
});
