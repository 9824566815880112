import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { dispatch, listenerOptions } from "@/lib/plane/node";
import { closeBrowser } from "@/lib/render/browser";
import { clockedLimiter, makeTestContext, type TestContext } from "./context";
import { freePort } from "./net";
import { CHROMIUM } from "./browser";

// A suite for render checks with the real Chromium: a test context whose SERVE_DOMAIN is
// drops.localhost:<port>, the data plane listening on that loopback port (so the checking
// browser opens drops as a visitor would), and RENDER_BROWSER_PATH set to Debian's Chromium.

export function renderSuite(): { readonly t: TestContext } {
  let t: TestContext | undefined;
  let plane: Server | undefined;
  beforeAll(async () => {
    const port = await freePort();
    t = await makeTestContext({ SERVE_DOMAIN: `drops.localhost:${port}`, RENDER_BROWSER_PATH: CHROMIUM });
    plane = createServer(listenerOptions, (req, res) => {
      if (!dispatch(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((r) => plane!.listen(port, "127.0.0.1", r));
  });
  afterAll(async () => {
    await closeBrowser();
    plane?.closeAllConnections();
    if (plane) await new Promise((r) => plane!.close(r));
    await t?.close();
  });
  beforeEach(() => {
    if (t) t.ctx.limiter = clockedLimiter(t);
  });
  return {
    get t() {
      if (!t) throw new Error("The render suite opens in beforeAll.");
      return t;
    },
  };
}

/** Width and height from a PNG's IHDR chunk (after checking the signature). */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
