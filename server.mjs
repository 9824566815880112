// Starts the app: Next's request handler behind a plain Node HTTP listener. The one thing it
// adds is the socket address of each client, in a header no client can set, for abuse limits
// when TRUST_PROXY is off (Next itself keeps a client-sent X-Forwarded-For).
import { createServer } from "node:http";
import next from "next";

const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT ?? 3000);
const bind = process.env.HOST ?? "0.0.0.0";

const app = next({ dev, hostname: "localhost", port });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((req, res) => {
  req.headers["x-dropsite-socket-ip"] = req.socket.remoteAddress ?? "unknown";
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) => {
    const lower = String(name).toLowerCase();
    // Next announces its internal rewrite target to the client; visitors of a drop need not see it.
    if (lower === "x-middleware-rewrite") return res;
    // Next strips Content-Length from route responses; lib/serve passes it for HEAD and 206.
    if (lower === "x-dropsite-content-length") return setHeader("Content-Length", value);
    return setHeader(name, value);
  };
  handle(req, res);
});
server.listen(port, bind, () => {
  console.log(`> dropsite ready on http://localhost:${port} (${dev ? "development" : "production"})`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  });
}
