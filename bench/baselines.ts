// The servers the app is measured against, on the same files: nginx, a minimal node:http file
// server (stat and read per request) and a minimal node:http server answering the same bytes from
// memory (the runtime's own limit for these answers).
import { spawn } from "node:child_process";
import { chmod, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, requestAt } from "../tests/support/app-server";

export interface Baseline {
  port: number;
  stop: () => Promise<void>;
}

async function waitFor200(port: number, isDead: () => boolean, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await requestAt(port, "localhost", "/index.html")).status === 200) return;
    } catch {
      /* not yet */
    }
    if (i > 40 || isDead()) throw new Error(`${what} did not start (or answers non-200)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function nginxConf(work: string, siteDir: string, port: number): string {
  return `worker_processes 1;
daemon off;
pid ${work}/nginx.pid;
error_log ${work}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${work}/client_body;
  proxy_temp_path ${work}/proxy;
  fastcgi_temp_path ${work}/fastcgi;
  uwsgi_temp_path ${work}/uwsgi;
  scgi_temp_path ${work}/scgi;
  server { listen 127.0.0.1:${port}; root ${siteDir}; }
}
`;
}

/** nginx (the Debian package), one worker, sendfile on, access log off. */
export async function startNginx(siteDir: string, work: string): Promise<Baseline> {
  const port = await freePort();
  const conf = path.join(work, "nginx.conf");
  for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    await mkdir(path.join(work, d), { recursive: true });
  await writeFile(conf, nginxConf(work, siteDir, port));
  // nginx's worker reads files as another user: every directory on the way must be open to it.
  for (let d = work; d !== path.dirname(d) && d.startsWith(tmpdir()); d = path.dirname(d)) await chmod(d, 0o755);
  await chmod(siteDir, 0o755);
  const proc = spawn("nginx", ["-c", conf, "-p", work], { stdio: ["ignore", "ignore", "inherit"] });
  await waitFor200(port, () => proc.exitCode !== null, "nginx (check permissions)");
  return {
    port,
    stop: async () => {
      proc.kill("SIGQUIT");
      await new Promise((r) => setTimeout(r, 300));
    },
  };
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".jpg": "image/jpeg" };

/** One file's answer: 304 on a matching If-None-Match, 206 for one byte range, else 200. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  file: string,
  etag: string,
  bytes: () => Promise<Uint8Array> | Uint8Array,
): Promise<void> | void {
  const headers: Record<string, string | number> = {
    "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream",
    ETag: etag,
    "Accept-Ranges": "bytes",
  };
  if (req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
  const send = (body: Uint8Array) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (!m) return void res.writeHead(200, { ...headers, "Content-Length": body.length }).end(body);
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), body.length - 1);
    res.writeHead(206, {
      ...headers,
      "Content-Range": `bytes ${start}-${end}/${body.length}`,
      "Content-Length": end - start + 1,
    });
    res.end(body.subarray(start, end + 1));
  };
  const body = bytes();
  return body instanceof Uint8Array ? send(body) : body.then(send);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void): Promise<Baseline> {
  const server = createServer((req, res) => void handler(req, res));
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { port, stop: () => new Promise((r) => server.close(() => r())) };
}

const requestPath = (req: IncomingMessage) => decodeURIComponent((req.url ?? "/").split("?")[0] as string);

/** A minimal node:http file server: stat + readFile per request, ETag/304 and one byte range, nothing cached. */
export function startNodeStatic(siteDir: string): Promise<Baseline> {
  return listen(async (req, res) => {
    const file = path.join(siteDir, requestPath(req));
    try {
      const s = await stat(file);
      await answer(req, res, file, `"${s.size}-${s.mtimeMs}"`, () => readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
}

/** A minimal node:http server with every file of the folder read once, at start: the same answers from memory. */
export async function startNodeMemory(siteDir: string): Promise<Baseline> {
  const files = new Map<string, { bytes: Uint8Array; etag: string }>();
  for (const name of await readdir(siteDir)) {
    const bytes = await readFile(path.join(siteDir, name));
    files.set(`/${name}`, { bytes, etag: `"${bytes.length}-${files.size}"` });
  }
  return listen((req, res) => {
    const pathname = requestPath(req);
    const file = files.get(pathname);
    if (!file) return void res.writeHead(404).end();
    return answer(req, res, pathname, file.etag, () => file.bytes);
  });
}
