import { POST as deployPOST } from "@/app/deploy/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { POST as oncePOST } from "@/app/deploy/once/[token]/route";
import { POST as oncePreflightPOST } from "@/app/deploy/once/[token]/preflight/route";
import { apiRequest, TEST_BASE_URL } from "./context";

// The deploy routes called in-process, as the integration suites send them: a deploy of a
// FilesBody or of any body, a preflight, the PUT of an upload target, and a fetch() that routes
// requests for the app to the handlers (recording each body's size) and the rest over HTTP.

const noParams = { params: Promise.resolve({}) };
let ipN = 0;

/** A client address of its own for each call (the per-address limits stay out of a suite's way). */
export const nextIp = () => `198.51.100.${++ipN % 250}`;

/** POST /deploy with a body of a content type, from `ip` (a fresh address by default). */
export function postDeploy(
  body: BodyInit,
  contentType: string,
  opts: { query?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<Response> {
  return deployPOST(
    apiRequest(`/deploy${opts.query ?? ""}`, {
      method: "POST",
      body,
      headers: { "content-type": contentType, ...opts.headers },
      ip: opts.ip ?? nextIp(),
    }),
    noParams,
  );
}

/** POST /deploy of a FilesBody ({"files": …}), each from a fresh address. */
export function deployFiles(files: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return postDeploy(JSON.stringify({ files }), "application/json", { headers });
}

/** POST /deploy/preflight of files by hash and size. */
export function preflightFiles(
  files: Record<string, { sha256: string; size: number }>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return preflightPOST(
    apiRequest("/deploy/preflight", {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
    }),
    noParams,
  );
}

/** PUT of a preflight's upload target on the app (/deploy/uploads/<token>/<sha256>). */
export function uploadTo(url: string, body: Uint8Array): Promise<Response> {
  const { pathname } = new URL(url);
  const [, , , token, sha256] = pathname.split("/");
  return uploadPUT(
    apiRequest(pathname, {
      method: "PUT",
      body: body as BodyInit,
      headers: { "content-type": "application/octet-stream" },
    }),
    { params: Promise.resolve({ token: token!, sha256: sha256! }) },
  );
}

/**
 * The app as a client reaches it: `app` sends requests for BASE_URL's deploy routes to their
 * handlers (from a fresh address unless the request names one), with each request body's size
 * as the app got it in `bodies`; `send` does that for the app and goes over HTTP elsewhere
 * (storage's upload targets).
 */
export function inProcessDeploys() {
  const bodies: Array<{ path: string; bytes: number }> = [];
  async function app(url: string, init: RequestInit): Promise<Response> {
    const u = new URL(url);
    const body =
      init.body === undefined || init.body === null
        ? new Uint8Array(0)
        : new Uint8Array(await new Response(init.body).arrayBuffer());
    bodies.push({ path: u.pathname, bytes: body.byteLength });
    const headers = new Headers(init.headers);
    if (!headers.has("x-dropsite-socket-ip")) headers.set("x-dropsite-socket-ip", nextIp());
    const req = new Request(url, { method: init.method, headers, body: body.byteLength > 0 ? body : undefined });
    const upload = /^\/deploy\/uploads\/([^/]+)\/([^/]+)$/.exec(u.pathname);
    if (upload && init.method === "PUT")
      return uploadPUT(req, { params: Promise.resolve({ token: upload[1]!, sha256: upload[2]! }) });
    if (u.pathname === "/deploy/preflight") return preflightPOST(req, noParams);
    if (u.pathname === "/deploy") return deployPOST(req, noParams);
    const once = /^\/deploy\/once\/([^/]+)(\/preflight)?$/.exec(u.pathname);
    if (once && init.method === "POST")
      return (once[2] ? oncePreflightPOST : oncePOST)(req, { params: Promise.resolve({ token: once[1]! }) });
    throw new Error(`the test harness has no route for ${init.method} ${u.pathname}`);
  }
  const send = (url: string, init: RequestInit): Promise<Response> =>
    url.startsWith(TEST_BASE_URL) ? app(url, init) : fetch(url, init);
  return { app, send, bodies };
}
