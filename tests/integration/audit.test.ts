import { describe, expect, it } from "vitest";
import { suiteContext } from "../support/context";
import { listAudit, recordAudit } from "@/lib/db/audit";

// The audit log: entries appended in order, read newest first, filtered by actor and target.

const t = suiteContext();

describe("audit log", () => {
  it("lists entries newest first with their total, filtered by actor and target", async () => {
    const db = t.ctx.db;
    await recordAudit(db, {
      actor: "cli",
      action: "block.added",
      target: "block:10.0.0.0/8",
      reason: "spam",
      at: new Date(1_000),
    });
    await db.transaction(async (tx) => {
      await recordAudit(tx, {
        actor: "acc-1",
        action: "drop.disabled",
        target: "drop:abc",
        reason: "phishing",
        data: { note: "kit" },
        at: new Date(2_000),
      });
    });
    const all = await listAudit(db, { limit: 10, offset: 0 });
    expect(all.total).toBe(2);
    expect(all.entries.map((e) => e.action)).toEqual(["drop.disabled", "block.added"]);
    expect(all.entries[0]).toMatchObject({
      actor: "acc-1",
      target: "drop:abc",
      reason: "phishing",
      data: { note: "kit" },
    });
    const byActor = await listAudit(db, { limit: 10, offset: 0, actor: "cli" });
    expect(byActor.entries.map((e) => e.target)).toEqual(["block:10.0.0.0/8"]);
    const byTarget = await listAudit(db, { limit: 10, offset: 0, target: "drop:abc" });
    expect(byTarget.total).toBe(1);
    const page = await listAudit(db, { limit: 1, offset: 1 });
    expect(page.total).toBe(2);
    expect(page.entries.map((e) => e.action)).toEqual(["block.added"]);
  });
});
