import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A local stand-in of the GitHub REST API, for running the Action as a runner does
// (GITHUB_API_URL points here). It records every call and answers the few the Action may make:
// the token's identity (GET /user; an installation token `ghs_…` is refused there with 403
// "Resource not accessible by integration", as GitHub does, and answered by GraphQL `viewer`),
// and a pull request's issue comments (list, create, edit). Anything else answers 404, recorded.

export interface GitHubCall {
  method: string;
  /** Path and query as sent. */
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface GitHubUser {
  id: number;
  login: string;
  type: "User" | "Bot";
}

export interface StandInComment {
  id: number;
  issue: string;
  body: string;
  user: GitHubUser;
}

export interface GitHubStandIn {
  url: string;
  calls: GitHubCall[];
  comments: StandInComment[];
  /** Tokens the stand-in knows, and whom each acts as. */
  tokens: Map<string, GitHubUser>;
  /** Adds a comment as someone (another person, or the token's own identity). */
  seedComment(owner: string, repo: string, number: number, body: string, user: GitHubUser): StandInComment;
  commentsOn(owner: string, repo: string, number: number): StandInComment[];
  close(): Promise<void>;
}

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });

export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const calls: GitHubCall[] = [];
  const comments: StandInComment[] = [];
  const tokens = new Map<string, GitHubUser>();
  let nextId = 1000;
  const view = (c: StandInComment) => ({
    id: c.id,
    body: c.body,
    user: { id: c.user.id, login: c.user.login, type: c.user.type },
    html_url: `https://github.test/${c.issue}#issuecomment-${c.id}`,
  });

  function answer(method: string, url: URL, who: GitHubUser | undefined, token: string, body: unknown) {
    if (!who) return json(401, { message: "Bad credentials" });
    const p = url.pathname;
    if (method === "GET" && p === "/user") {
      if (token.startsWith("ghs_")) return json(403, { message: "Resource not accessible by integration" });
      return json(200, { id: who.id, login: who.login, type: who.type });
    }
    if (method === "POST" && p === "/graphql") {
      const query = (body as { query?: string } | null)?.query ?? "";
      if (!/viewer/.test(query)) return json(200, { errors: [{ message: "the stand-in answers viewer only" }] });
      return json(200, { data: { viewer: { login: who.login.replace(/\[bot\]$/, ""), databaseId: who.id } } });
    }
    let m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(p);
    if (m) {
      const issue = `${m[1]}/${m[2]}/${m[3]}`;
      if (method === "GET") {
        const perPage = Number(url.searchParams.get("per_page") ?? 30);
        const page = Number(url.searchParams.get("page") ?? 1);
        const all = comments.filter((c) => c.issue === issue);
        return json(200, all.slice((page - 1) * perPage, page * perPage).map(view));
      }
      if (method === "POST") {
        const c = { id: nextId++, issue, body: String((body as { body?: string }).body), user: who };
        comments.push(c);
        return json(201, view(c));
      }
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(p);
    if (m && method === "PATCH") {
      const c = comments.find((x) => x.id === Number(m[3]) && x.issue.startsWith(`${m[1]}/${m[2]}/`));
      if (!c) return json(404, { message: "Not Found" });
      // GitHub lets a token edit another's comment when it may write to the repository; the
      // stand-in refuses it, so a test sees the Action never tries.
      if (c.user.id !== who.id) return json(403, { message: "Must have admin rights to Repository." });
      c.body = String((body as { body?: string }).body);
      return json(200, view(c));
    }
    return json(404, { message: "Not Found" });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const authorization = req.headers.authorization;
      calls.push({ method: req.method ?? "GET", path: `${url.pathname}${url.search}`, authorization, body });
      const token = (authorization ?? "").replace(/^(token|bearer)\s+/i, "");
      const out = answer(req.method ?? "GET", url, tokens.get(token), token, body);
      res.writeHead(out.status, { "content-type": "application/json; charset=utf-8" }).end(out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    comments,
    tokens,
    seedComment(owner, repo, number, body, user) {
      const c = { id: nextId++, issue: `${owner}/${repo}/${number}`, body, user };
      comments.push(c);
      return c;
    },
    commentsOn: (owner, repo, number) => comments.filter((c) => c.issue === `${owner}/${repo}/${number}`),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
