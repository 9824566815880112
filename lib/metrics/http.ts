import { metrics } from "./registry";

// The request metrics, recorded once per request by the listener (lib/plane/log.ts) when the
// answer is done. The labelled children are kept per label set, so a request costs two map
// look-ups, an increment and a histogram bucket, not prom-client's label hashing.

type Plane = "data" | "app";

interface Children {
  count: { inc(): void };
  duration: { observe(seconds: number): void };
}

const children = new Map<string, Children>();

/** Counts one answered request: `http_requests_total` and `http_request_duration_seconds`. */
export function observeRequest(plane: Plane, route: string, status: number, seconds: number): void {
  const key = `${plane} ${route} ${status}`;
  let c = children.get(key);
  if (!c) {
    const m = metrics();
    c = {
      count: m.httpRequests.labels(plane, route, String(status)),
      duration: m.httpDuration.labels(plane, route),
    };
    children.set(key, c);
  }
  c.count.inc();
  c.duration.observe(seconds);
}
