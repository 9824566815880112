import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import * as linksRoute from "@/app/drops/[slug]/share-links/route";
import { findDropBySlug } from "@/lib/db/queries";
import { cliAgainstRoutes } from "../support/cli";
import { suiteContext } from "../support/context";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { sharedDrop } from "../support/sharing";

// `dropsite access <slug> --emails …` and `dropsite share <slug> --hours N` (cli/dist/dropsite.mjs)
// against this suite's access and share-link routes.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@example.test" }), { freshLimiter: true });
const sent: string[] = [];
const { cli } = cliAgainstRoutes("203.0.113.63", async (req, url) => {
  const access = /^\/drops\/([^/]+)\/access$/.exec(url.pathname);
  if (access && req.method === "PUT") {
    sent.push(await req.clone().text());
    return accessRoute.PUT(req, { params: Promise.resolve({ slug: access[1]! }) });
  }
  const links = /^\/drops\/([^/]+)\/share-links$/.exec(url.pathname);
  if (links && req.method === "POST") {
    sent.push(await req.clone().text());
    return linksRoute.POST(req, { params: Promise.resolve({ slug: links[1]! }) });
  }
  return null;
});

describe("dropsite access --emails and dropsite share", () => {
  it("sends the list, prints it as stored; share prints the link; bad lines send nothing", async () => {
    const { owner, slug } = await sharedDrop(t);
    sent.splice(0);
    const r = await cli(["access", slug, "--emails", "Ana@X.org, @client.com"], owner.apiKey);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ana@x.org, @client.com");
    expect(sent.map((b) => JSON.parse(b) as unknown)).toEqual([
      { mode: "emails", allow: ["Ana@X.org", "@client.com"] },
    ]);
    expect((await findDropBySlug(t.ctx.db, slug))!.accessAllow).toEqual(["ana@x.org", "@client.com"]);

    const s = await cli(["share", slug, "--hours", "48"], owner.apiKey);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(
      new RegExp(`^http://${slug}\\.drops\\.localhost:3000/\\.well-known/dropsite/share\\?token=sh_`),
    );
    const json = await cli(["share", slug, "--hours", "2", "--json"], owner.apiKey);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: expect.stringMatching(/^shl_/) as unknown });

    sent.splice(0);
    expect((await cli(["access", slug, "--emails", "a@x.org", "--public"], owner.apiKey)).code).toBe(2);
    expect((await cli(["share", slug], owner.apiKey)).code).toBe(2);
    expect((await cli(["share", slug, "--hours", "two"], owner.apiKey)).code).toBe(2);
    expect(sent).toEqual([]);
    const over = await cli(["share", slug, "--hours", "721"], owner.apiKey);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("invalid_request");
  });
});
