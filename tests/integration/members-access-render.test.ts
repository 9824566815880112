import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { teams } from "@/lib/db/schema";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { renderOwnedDrop } from "@/lib/render/service";
import { actAsTeam } from "@/lib/teams/acting";
import { renderSuite } from "../support/render";
import { teamWith } from "../support/teams";

// A render check of a members-only drop with the real Chromium (the data plane on a loopback
// port): the checking browser has no session and may not reach the app host, so it sees what any
// visitor without the cookie sees — the way to the app host's sign-in — and nothing of the drop.

const suite = renderSuite();
const MARKER = "Members render marker 9b2c";

describe("the render check of a members-only drop", () => {
  it("reports no byte of the drop: not its title, text or requests", async () => {
    const { t } = suite;
    const { slug, owner } = await teamWith(t.ctx, []);
    const [team] = await t.ctx.db.select().from(teams).where(eq(teams.slug, slug));
    const acting = (await actAsTeam(
      t.ctx,
      { account: owner.account, via: "api_key", credentialKey: `key:${owner.keyId}` },
      team!,
    ))!;
    const page = `<!doctype html><title>${MARKER}</title><link rel="stylesheet" href="/s.css"><h1>${MARKER}</h1><script>console.error("${MARKER}")</script>`;
    const d = await createDrop(t.ctx, acting, {
      files: [
        { path: "index.html", bytes: new TextEncoder().encode(page) },
        { path: "s.css", bytes: new TextEncoder().encode("h1{color:red}") },
      ],
      ttl: null,
    });
    // Public first: the same check sees the page, so the comparison compares something.
    const open = (await renderOwnedDrop(t.ctx, acting.account, d.slug)).render;
    expect(JSON.stringify(open)).toContain(MARKER);
    await setAccess(t.ctx, acting.account, d.slug, { mode: "members" });
    const closed = (await renderOwnedDrop(t.ctx, acting.account, d.slug)).render;
    expect(closed.status).not.toBe("unavailable");
    expect(JSON.stringify(closed)).not.toContain(MARKER);
    expect(JSON.stringify(closed)).not.toContain("/s.css");
  }, 120_000);
});
