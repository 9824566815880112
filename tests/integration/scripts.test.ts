import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type AppContext } from "@/lib/context";
import { parseEnv } from "@/lib/env";
import { createDrop } from "@/lib/deploy/store";
import { findDropBySlug } from "@/lib/db/queries";
import { findAccount } from "@/lib/db/accounts";
import { accountWithKey } from "../support/accounts";

// The operator commands, run as child processes on a data dir: npm run cleanup and npm run admin.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let dataDir: string;

async function withContext<T>(now: number, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await createContext(parseEnv({ DATA_DIR: dataDir }), { now: () => now });
  try {
    return await fn(ctx);
  } finally {
    await ctx.dbHandle.close();
  }
}

async function script(name: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ["--import", "tsx", path.join(root, "scripts", name), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: dataDir },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-scripts-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("npm run cleanup", () => {
  it("purges drops whose time is up, bytes and rows, and leaves the rest", async () => {
    const threeDaysAgo = Date.now() - 3 * 86400_000;
    const { expired, kept, expiredId } = await withContext(threeDaysAgo, async (ctx) => {
      const { account } = await accountWithKey(ctx);
      const caller = { account, via: "api_key" as const, credentialKey: "k" };
      const file = [{ path: "index.html", bytes: new TextEncoder().encode("x") }];
      const expired = await createDrop(ctx, caller, { files: file, ttl: 60 });
      const kept = await createDrop(ctx, caller, { files: file, ttl: 30 * 86400 });
      return { expired: expired.slug, kept: kept.slug, expiredId: (await findDropBySlug(ctx.db, expired.slug))!.id };
    });
    const r = await script("cleanup.ts");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`purged 1 drop(s): ${expired}`);
    await withContext(Date.now(), async (ctx) => {
      expect(await findDropBySlug(ctx.db, expired)).toBeUndefined();
      expect(await findDropBySlug(ctx.db, kept)).toBeDefined();
      expect(await ctx.storage.list(`${expiredId}/`)).toEqual([]);
    });
    expect((await script("cleanup.ts")).stdout).toContain("purged 0 drop(s)");
  });
});

describe("npm run admin -- set-plan", () => {
  it("grants a plan by email or account id, and refuses bad input", async () => {
    const account = await withContext(Date.now(), async (ctx) => (await accountWithKey(ctx)).account);
    const byEmail = await script("admin.ts", ["set-plan", account.email!, "team"]);
    expect(byEmail.code, byEmail.stderr).toBe(0);
    expect(byEmail.stdout).toContain("free → team");
    const byId = await script("admin.ts", ["set-plan", account.id, "pro"]);
    expect(byId.stdout).toContain("team → pro");
    await withContext(Date.now(), async (ctx) => expect((await findAccount(ctx.db, account.id))?.plan).toBe("pro"));
    expect((await script("admin.ts", ["set-plan", "nobody@example.test", "pro"])).code).toBe(1);
    expect((await script("admin.ts", ["set-plan", account.id, "gold"])).code).toBe(2);
    expect((await script("admin.ts", ["grant", account.id])).code).toBe(2);
    await withContext(Date.now(), async (ctx) => expect((await findAccount(ctx.db, account.id))?.plan).toBe("pro"));
  });
});

describe("npm run admin -- operator commands", () => {
  it("grant-admin, disable/enable, suspend/unsuspend, block/unblock, queue and audit, each audited as cli", async () => {
    const { account, slug } = await withContext(Date.now(), async (ctx) => {
      const { account } = await accountWithKey(ctx);
      const caller = { account, via: "api_key" as const, credentialKey: "k" };
      const d = await createDrop(ctx, caller, {
        files: [{ path: "index.html", bytes: new TextEncoder().encode("x") }],
        ttl: null,
      });
      return { account, slug: d.slug };
    });
    const granted = await script("admin.ts", ["grant-admin", account.email!]);
    expect(granted.code, granted.stderr).toBe(0);
    await withContext(Date.now(), async (ctx) =>
      expect((await findAccount(ctx.db, account.id))?.adminGrantedAt).not.toBeNull(),
    );

    const disabled = await script("admin.ts", ["disable", slug, "spam", "bulk mail"]);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ slug, disabled: { reason: "spam" } });
    await withContext(Date.now(), async (ctx) =>
      expect((await findDropBySlug(ctx.db, slug))?.disabledReason).toBe("spam"),
    );
    expect((await script("admin.ts", ["disable", slug, "because"])).code).toBe(1);
    expect(JSON.parse((await script("admin.ts", ["enable", slug])).stdout)).toEqual({ slug, disabled: null });

    expect(JSON.parse((await script("admin.ts", ["suspend", account.id, "other"])).stdout)).toMatchObject({
      id: account.id,
      suspended: { reason: "other" },
    });
    await withContext(Date.now(), async (ctx) =>
      expect((await findAccount(ctx.db, account.id))?.suspendedAt).not.toBeNull(),
    );
    expect((await script("admin.ts", ["unsuspend", account.id])).code).toBe(0);
    await withContext(Date.now(), async (ctx) =>
      expect((await findAccount(ctx.db, account.id))?.suspendedAt).toBeNull(),
    );

    const block = JSON.parse((await script("admin.ts", ["block", "2001:db8::/32", "kits", "600"])).stdout);
    expect(block).toMatchObject({ cidr: "2001:db8::/32", reason: "kits", expires_at: expect.any(String) });
    expect((await script("admin.ts", ["unblock", block.id])).code).toBe(0);

    const audit = JSON.parse((await script("admin.ts", ["audit", "20"])).stdout);
    expect(
      audit.entries.filter((e: { actor: string }) => e.actor === "cli").map((e: { action: string }) => e.action),
    ).toEqual([
      "block.removed",
      "block.added",
      "account.unsuspended",
      "account.suspended",
      "drop.enabled",
      "drop.disabled",
      "admin.granted",
    ]);
    expect((await script("admin.ts", ["disable", slug])).code).toBe(2);
  }, 400_000);
});
