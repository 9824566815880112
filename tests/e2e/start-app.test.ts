import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp } from "../support/app-server";

// The harness itself: a port taken between freePort and the app's listen (EADDRINUSE on a fresh
// clone) must neither end the test run nor hand back whatever server took the port.

let impostor: Server;
let takenPort: number;

beforeAll(async () => {
  // Answers 200 to everything, as an app would: only the app's own ready line may count.
  impostor = createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("not the app"));
  takenPort = await freePort();
  await new Promise<void>((r) => impostor.listen(takenPort, "127.0.0.1", r));
});
afterAll(async () => {
  await new Promise((r) => impostor.close(r));
});

describe("startApp and a taken port", () => {
  it("refuses a fixed port another server holds instead of returning that server", async () => {
    await expect(startApp({}, { port: takenPort })).rejects.toThrow(/was taken/);
  });

  it("starts on another port when the one it picked was taken", async () => {
    const tried: number[] = [];
    const ports = [takenPort];
    const app = await startApp(
      {},
      {
        nextPort: async () => {
          const p = ports.shift() ?? (await freePort());
          tried.push(p);
          return p;
        },
      },
    );
    try {
      expect(tried[0]).toBe(takenPort);
      expect(app.port).not.toBe(takenPort);
      const health = await app.request(`localhost:${app.port}`, "/healthz");
      expect(health.status).toBe(200);
      expect(health.json()).toMatchObject({ status: "ok" });
    } finally {
      await app.stop();
    }
  });
});
