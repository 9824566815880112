import { createServer } from "node:http";
import { dispatch, listenerOptions } from "@/lib/plane/node";
import { freePort } from "./net";

// The self-hosted data plane on a loopback port, as server.mjs runs it (the same listener
// options and dispatch); what dispatch does not take answers 404 here instead of going to Next.

export interface RunningPlane {
  port: number;
  close(): Promise<void>;
}

export async function startDataPlane(): Promise<RunningPlane> {
  const server = createServer(listenerOptions, (req, res) => {
    if (!dispatch(req, res)) res.writeHead(404).end();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
