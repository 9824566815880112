import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/errors";
import { GuardedStorage } from "@/lib/storage/guard";
import { S3Storage } from "@/lib/storage/s3";

// A store that hangs instead of refusing: it accepts the connection and never answers (a stuck
// proxy in front of the bucket). The S3 client's timeouts bound the call (lib/storage/s3.ts: 10 s
// without a byte on an open socket), the guard (lib/storage/guard.ts) then marks the store down,
// and every call after that is refused at once. It waits out that timeout, so it stays outside
// `npm run test:fast`, which runs tests/unit and four named integration files.

let server: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((s) => void sockets.push(s.on("error", () => undefined)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe("a store that accepts connections and never answers", () => {
  it("a call fails within the socket timeout as a 503, and calls after it are refused at once", async () => {
    const storage = new GuardedStorage(
      new S3Storage({
        bucket: "hung",
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        region: "us-east-1",
        credentials: { accessKeyId: "hung", secretAccessKey: "hung-secret" },
        forcePathStyle: true,
        maxAttempts: 1,
      }),
      { downMs: 60_000, onChange: () => undefined },
    );
    const started = performance.now();
    const first = await storage.size("hung/key").catch((err: unknown) => err);
    const took = performance.now() - started;
    expect(first).toBeInstanceOf(ApiError);
    expect(first).toMatchObject({ code: "upstream_unavailable", status: 503 });
    // The connection was made and the request sent: only the idle timeout ended the wait.
    expect(sockets.length).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(9_000);
    expect(took).toBeLessThan(20_000);
    expect(storage.down).toBe(true);
    const again = performance.now();
    await expect(storage.list("hung/")).rejects.toMatchObject({ code: "upstream_unavailable", status: 503 });
    expect(performance.now() - again).toBeLessThan(250);
  }, 60_000);
});
