import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as fileRoute from "@/app/drops/[slug]/files/[...path]/route";
import { READ_FILE_TEXT_BYTES, SIGNED_READ_SECONDS } from "@/lib/plans";
import { zipForDeploy } from "@/lib/files/pack";
import { POST as deployPOST } from "@/app/deploy/route";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { CLIENT_FLAVOURS, connectAgent, resultText, type CallResult } from "../support/mcp";

// MCP list_files and read_file through both official clients: text comes back as text, a binary
// or large file as a resource link to a signed URL that answers its bytes for a few minutes,
// without a credential, and refuses any change to it.

const t = suiteContext({}, { freshLimiter: true });
let ipN = 0;
const nextIp = () => `198.51.100.${(++ipN % 200) + 20}`;
const errorCode = (r: CallResult) => (r._meta?.["dev.dropsite/error"] as { code: string } | undefined)?.code;

const enc = new TextEncoder();
const binary = new Uint8Array(randomBytes(5000));
const big = "x".repeat(READ_FILE_TEXT_BYTES + 1);

async function deployed(key: string, name: string): Promise<string> {
  const res = await deployPOST(
    apiRequest(`/deploy?name=${name}`, {
      method: "POST",
      body: Buffer.from(
        zipForDeploy({
          "index.html": enc.encode("<h1>héllo</h1>"),
          _redirects: enc.encode("/a /b 302\n"),
          "img/logo.png": binary,
          "big.txt": enc.encode(big),
        }),
      ),
      headers: { "content-type": "application/zip", ...bearer(key) },
      ip: nextIp(),
    }),
    { params: Promise.resolve({}) },
  );
  const body = (await res.json()) as { slug: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.slug;
}

/** GET of a URL the route module answers, with no credential. */
async function fetchSigned(url: string): Promise<Response> {
  const u = new URL(url);
  const slug = u.pathname.split("/")[2]!;
  return fileRoute.GET(apiRequest(`${u.pathname}${u.search}`, { ip: nextIp() }), {
    params: Promise.resolve({ slug, path: [] as unknown as string }),
  });
}

describe.each(CLIENT_FLAVOURS)("MCP list_files and read_file (%s)", (flavour) => {
  it("lists every file, reads text as text, and links anything else to a signed URL that refuses tampering", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const slug = await deployed(apiKey, `mcpread-${flavour.replace(/\W/g, "")}`);
    const agent = await connectAgent(flavour, { credential: apiKey, ip: nextIp() });
    try {
      const tools = await agent.listTools();
      expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(["list_files", "read_file"]));

      const listed = await agent.call("list_files", { slug });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ version: 1 });
      const paths = (listed.structuredContent as { files: { path: string }[] }).files.map((f) => f.path);
      expect(paths).toEqual(["_redirects", "big.txt", "img/logo.png", "index.html"]);
      expect(resultText(listed)).toContain("img/logo.png");

      const page = await agent.call("read_file", { slug, path: "index.html" });
      expect(page.isError).toBeFalsy();
      expect(page.content[0]).toMatchObject({ type: "text", text: "<h1>héllo</h1>" });
      expect(page.structuredContent).toMatchObject({ path: "index.html", text: "<h1>héllo</h1>", version: 1 });
      expect((await agent.call("read_file", { slug, path: "_redirects" })).content[0]?.text).toBe("/a /b 302\n");

      for (const [path, bytes] of [
        ["img/logo.png", binary],
        ["big.txt", enc.encode(big)],
      ] as const) {
        const linked = await agent.call("read_file", { slug, path });
        expect(linked.isError, resultText(linked)).toBeFalsy();
        const link = linked.content.find((c) => c.type === "resource_link") as unknown as { uri: string; name: string };
        expect(link).toMatchObject({ name: path });
        expect(link.uri.startsWith(`${t.ctx.env.BASE_URL}/drops/${slug}/files/`)).toBe(true);
        const s = linked.structuredContent as { url: string; expires_at: string; text?: string };
        expect(s.text).toBeUndefined();
        expect(s.url).toBe(link.uri);
        const ttl = Date.parse(s.expires_at) - t.ctx.now();
        expect(ttl).toBeGreaterThan((SIGNED_READ_SECONDS - 5) * 1000);
        expect(ttl).toBeLessThanOrEqual(SIGNED_READ_SECONDS * 1000);

        const ok = await fetchSigned(link.uri);
        expect(ok.status).toBe(200);
        expect(ok.headers.get("content-disposition")).toMatch(/^attachment/);
        expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
        expect(ok.headers.get("content-security-policy")).toBe("sandbox");
        expect(Buffer.from(await ok.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

        const u = new URL(link.uri);
        const sig = u.searchParams.get("signature")!;
        const tampered = [
          link.uri.replace(`signature=${sig}`, `signature=${sig.slice(0, -2)}${sig.endsWith("AA") ? "BB" : "AA"}`),
          link.uri.replace("version=1", "version=2"),
          link.uri.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 60}`),
          link.uri.replace(u.pathname, `/drops/${slug}/files/index.html`),
          link.uri.replace(/&?signature=[^&]*/, "&signature="),
        ];
        for (const bad of tampered) {
          const res = await fetchSigned(bad);
          expect(res.status, bad).toBe(403);
          expect(((await res.json()) as { code: string }).code).toBe("forbidden");
        }
      }

      expect(errorCode(await agent.call("read_file", { slug, path: "nope.html" }))).toBe("not_found");
      expect(errorCode(await agent.call("list_files", { slug, version: 9 }))).toBe("not_found");
      const other = await accountWithKey(t.ctx, "pro");
      const stranger = await connectAgent(flavour, { credential: other.apiKey, ip: nextIp() });
      expect(errorCode(await stranger.call("read_file", { slug, path: "index.html" }))).toBe("not_found");
      await stranger.close();
      const anonymous = await connectAgent(flavour, { ip: nextIp() });
      expect(errorCode(await anonymous.call("list_files", { slug }))).toBe("auth_required");
      await anonymous.close();
    } finally {
      await agent.close();
    }
  });
});
