import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, apiClient, checkUpload, nodeFetch } from "../../cli/core/api";
import { CliError, EXIT } from "../../cli/core/errors";
import { send } from "../../cli/core/transport";

// The CLI's typed client over its node:http transport, against a real server on loopback that
// answers as the API and the stores do: the bytes and headers that arrive, upload progress as
// the body is written, a streamed answer, and each kind of failure with its exit code.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}
const seen: Seen[] = [];
let server: Server;
let api = "";
const ARCHIVE = Buffer.alloc(3 * 1024 * 1024, 7);

const routes: Record<
  string,
  (s: Seen) => { status: number; headers?: Record<string, string>; body?: Buffer | string }
> = {
  "POST /deploy?name=site": (s) => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ got: s.body.byteLength }),
  }),
  "GET /limits": () => ({
    status: 429,
    headers: { "content-type": "application/json", "retry-after": "7" },
    body: JSON.stringify({ error: "Slow down", code: "rate_limited", hint: "Wait." }),
  }),
  "GET /drops": () => ({ status: 502, headers: { "content-type": "text/html" }, body: "<h1>Bad gateway</h1>" }),
  "GET /webhooks": () => ({ status: 200, headers: { "content-type": "application/json" }, body: "not json" }),
  "DELETE /drops/a/aliases/b": () => ({ status: 204 }),
  "GET /drops/a/archive?version=3": () => ({
    status: 200,
    headers: { "content-type": "application/zip" },
    body: ARCHIVE,
  }),
  "PUT /s3": () => ({
    status: 403,
    headers: { "content-type": "application/xml" },
    body: "<Error><Code>SignatureDoesNotMatch</Code><Message>The signature does not match.</Message></Error>",
  }),
  "PUT /blob": () => ({
    status: 400,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ error: { code: "bad_request", message: "Token expired." } }),
  }),
  "PUT /ok": () => ({ status: 200 }),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(parts) };
      seen.push(s);
      const route = routes[`${s.method} ${s.url}`];
      const a = route ? route(s) : { status: 404, body: "{}" };
      res.writeHead(a.status, a.headers);
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const failure = async (p: Promise<unknown>): Promise<CliError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
};

describe("the CLI's typed client over node:http", () => {
  it("sends a raw body byte for byte with its type and the key, telling progress as the body is written", async () => {
    const bytes = new Uint8Array(1024 * 1024).map((_, i) => i % 251);
    const sent: number[] = [];
    const res = await answer(
      apiClient({ api, key: "sp_key" }).POST("/deploy", {
        params: { query: { name: "site" } },
        body: new Blob([bytes]),
        headers: { "content-type": "application/zip" },
        fetch: nodeFetch((n) => sent.push(n)),
      }),
    );
    expect(res).toEqual({ got: bytes.byteLength });
    const s = seen.at(-1)!;
    expect(s.url).toBe("/deploy?name=site");
    expect(Buffer.compare(s.body, Buffer.from(bytes))).toBe(0);
    expect(s.headers["content-type"]).toBe("application/zip");
    expect(s.headers.authorization).toBe("Bearer sp_key");
    expect(s.headers["user-agent"]).toMatch(/^dropsite-cli\//);
    // Chunk by chunk, growing, up to the whole body.
    expect(sent.length).toBeGreaterThan(4);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(sent.at(-1)).toBe(bytes.byteLength);
  });

  it("an error envelope is exit 1 with its fields, the status and Retry-After; no key sends no credential", async () => {
    const err = await failure(answer(apiClient({ api }).GET("/limits")));
    expect(err.message).toBe("Slow down");
    expect(err.exitCode).toBe(EXIT.api);
    expect(err.details).toMatchObject({ status: 429, code: "rate_limited", hint: "Wait.", retry_after: 7 });
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("an answer that is not the API's JSON is exit 3, bad_response; an unreachable API is exit 3, network_error", async () => {
    const html = await failure(answer(apiClient({ api }).GET("/drops")));
    expect(html.exitCode).toBe(EXIT.network);
    expect(html.message).toBe("Unexpected answer (HTTP 502): <h1>Bad gateway</h1>");
    expect(html.details).toMatchObject({ code: "bad_response", status: 502 });
    const text = await failure(answer(apiClient({ api }).GET("/webhooks")));
    expect(text.exitCode).toBe(EXIT.network);
    expect(text.details.code).toBe("bad_response");
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await failure(answer(apiClient({ api: `http://127.0.0.1:${port}` }).GET("/limits")));
    expect(down.exitCode).toBe(EXIT.network);
    expect(down.message).toContain("Cannot reach");
    expect(down.details.code).toBe("network_error");
  });

  it("a 204 is no data and no error; an archive streams as it arrives", async () => {
    const client = apiClient({ api, key: "sp_key" });
    await expect(
      answer(client.DELETE("/drops/{slug}/aliases/{name}", { params: { path: { slug: "a", name: "b" } } })),
    ).resolves.toBeUndefined();
    const stream = await answer(
      client.GET("/drops/{slug}/archive", {
        params: { path: { slug: "a" }, query: { version: "3" } },
        parseAs: "stream",
      }),
    );
    expect(stream).toBeInstanceOf(ReadableStream);
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream as ReadableStream<Uint8Array>) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.compare(Buffer.concat(chunks), ARCHIVE)).toBe(0);
  });

  it("upload targets: S3's XML error and Vercel Blob's JSON error are storage_ codes, exit 1; an empty 200 passes", async () => {
    const body = new Uint8Array([1, 2, 3]);
    const s3 = await failure(checkUpload(await send("PUT", `${api}/s3`, { body })));
    expect(s3.exitCode).toBe(EXIT.api);
    expect(s3.message).toBe("Storage refused the upload: The signature does not match.");
    expect(s3.details).toMatchObject({ status: 403, code: "storage_SignatureDoesNotMatch" });
    const blob = await failure(checkUpload(await send("PUT", `${api}/blob`, { body })));
    expect(blob.exitCode).toBe(EXIT.api);
    expect(blob.message).toBe("Token expired.");
    expect(blob.details).toMatchObject({ status: 400, code: "storage_bad_request" });
    await expect(checkUpload(await send("PUT", `${api}/ok`, { body }))).resolves.toBeUndefined();
    expect(seen.at(-1)!.body).toEqual(Buffer.from(body));
  });
});
