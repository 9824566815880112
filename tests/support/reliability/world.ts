// Setup through the app, before the load: a webhook receiver for the pro accounts, the drop the
// appends fill towards its file cap, and the first version of every named drop.
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { limits } from "../../../lib/plans";
import { jsonOf, type Send } from "./http";
import { namedDrops, type Named, type Writes } from "./named";
import type { Stack } from "./stack";

/** What the webhook receiver saw: the secrets by path, the event ids it verified, the deliveries it refused. */
export interface Hooks {
  secrets: Map<string, string>;
  received: Set<string>;
  unverified: number;
}

export interface World {
  hooks: Hooks;
  receiver: Server;
  /** The drop appended towards the cap, and the cap. */
  bigSlug: string;
  filesCap: number;
  named: Named[];
}

const auth = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

export async function setUpWorld(stack: Stack, send: Send, w: Writes, log: (line: string) => void): Promise<World> {
  const { receiver, hooks } = await startReceiver();
  try {
    await addWebhooks(stack, send, receiver, hooks);
    const bigSlug = await fillBigDrop(stack, send);
    const named = namedDrops(stack.accounts.pros);
    for (const n of named) {
      const r = await w.redeploy(n);
      if (r.status !== 200) throw new Error(`setup: named deploy answered ${r.status}: ${r.body.toString()}`);
    }
    log(
      `setup: drop ${bigSlug} holds ${limits.pro.filesPerDrop - 12} files; the free account holds ${limits.free.maxDrops! - 3} drops; the keys account ${limits.free.maxKeys - 2} keys`,
    );
    return { hooks, receiver, bigSlug, filesCap: limits.pro.filesPerDrop, named };
  } catch (err) {
    await closeReceiver(receiver);
    throw err;
  }
}

export function closeReceiver(receiver: Server | undefined): Promise<void> {
  return new Promise((r) => (receiver ? receiver.close(() => r()) : r()));
}

/** A receiver that verifies every delivery's signature (standardwebhooks) and keeps the event ids it accepted. */
async function startReceiver(): Promise<{ receiver: Server; hooks: Hooks }> {
  const hooks: Hooks = { secrets: new Map(), received: new Set(), unverified: 0 };
  const receiver = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const secret = hooks.secrets.get(req.url ?? "");
      try {
        const event = new Webhook(secret ?? "whsec_AAAA").verify(body, req.headers as Record<string, string>) as {
          id: string;
        };
        hooks.received.add(event.id);
        res.writeHead(204).end();
      } catch {
        hooks.unverified++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  return { receiver, hooks };
}

/** Each pro account gets a webhook on the receiver; the app process's worker delivers while the load runs. */
async function addWebhooks(stack: Stack, send: Send, receiver: Server, hooks: Hooks): Promise<void> {
  for (const [i, owner] of stack.accounts.pros.entries()) {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook-${i}`;
    const r = await send("setup", true, stack.appHost, "/webhooks", {
      method: "POST",
      headers: { ...auth(owner.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });
    if (r.status !== 201) throw new Error(`setup: POST /webhooks answered ${r.status}: ${r.body.toString()}`);
    hooks.secrets.set(`/hook-${i}`, jsonOf<{ secret: string }>(r).secret);
  }
}

/** The drop that appends fill towards its cap: deployed and appended to through the app, 12 files short. */
async function fillBigDrop(stack: Stack, send: Send): Promise<string> {
  const owner = stack.accounts.pros[0]!;
  const perRequest = limits.pro.filesPerRequest;
  const prefill = limits.pro.filesPerDrop - 12;
  const batch = (from: number, n: number) =>
    JSON.stringify({
      files: Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`fill/${String(from + i).padStart(5, "0")}.txt`, "x"]),
      ),
    });
  const headers = { ...auth(owner.apiKey), "content-type": "application/json" };
  const first = await send("setup", true, stack.appHost, "/deploy", {
    method: "POST",
    headers,
    body: batch(0, perRequest),
  });
  if (first.status !== 200) throw new Error(`setup deploy answered ${first.status}: ${first.body.toString()}`);
  const slug = jsonOf<{ slug: string }>(first).slug;
  for (let at = perRequest; at < prefill; at += perRequest) {
    const r = await send("setup", true, stack.appHost, `/deploy/${slug}`, {
      method: "POST",
      headers,
      body: batch(at, Math.min(perRequest, prefill - at)),
    });
    if (r.status !== 200) throw new Error(`setup append answered ${r.status}: ${r.body.toString()}`);
  }
  return slug;
}
