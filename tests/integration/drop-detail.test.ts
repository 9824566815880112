import { describe, expect, it } from "vitest";
import * as deployRoute from "@/app/deploy/route";
import { getDrop } from "@/lib/drops/manage";
import { ApiError } from "@/lib/errors";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// The dashboard's page per drop reads one drop of the session's account with its files.

const t = suiteContext();

async function deploy(files: Record<string, string>, apiKey: string): Promise<string> {
  const res = await deployRoute.POST(
    apiRequest("/deploy", {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...bearer(apiKey) },
    }),
    { params: Promise.resolve({}) },
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { slug: string }).slug;
}

describe("a drop's page", () => {
  it("lists the owner's drop with its files, sizes and types, sorted by path", async () => {
    const owner = await accountWithKey(t.ctx);
    const slug = await deploy({ "index.html": "<h1>hi</h1>", "assets/app.js": "console.log(1)" }, owner.apiKey);
    const detail = await getDrop(t.ctx, owner.account, slug);
    expect(detail.slug).toBe(slug);
    expect(detail.url).toBe(`http://${slug}.drops.localhost:3000/`);
    expect(detail.files).toEqual([
      { path: "assets/app.js", size: 14, content_type: expect.stringContaining("javascript") },
      { path: "index.html", size: 11, content_type: expect.stringContaining("text/html") },
    ]);
    expect(detail.total_bytes).toBe(25);
  });

  it("another account's drop answers not_found, exactly as an absent one", async () => {
    const owner = await accountWithKey(t.ctx);
    const other = await accountWithKey(t.ctx);
    const slug = await deploy({ "index.html": "mine" }, owner.apiKey);
    for (const s of [slug, "nosuchdropatall"]) {
      const err = await getDrop(t.ctx, other.account, s).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("not_found");
    }
  });
});
