import { and, eq, lt } from "drizzle-orm";
import type { Db } from "./client";
import { deviceCodes, type DeviceClaim, type DeviceCodeRow } from "./schema";

// Named queries of the device-code flow (lib/device/flow.ts).

export type NewDeviceCode = typeof deviceCodes.$inferInsert;

/** Forgets requests that expired before `before` (kept until then for their expired_token answer). */
export async function purgeDeviceCodes(db: Db, before: Date): Promise<void> {
  await db.delete(deviceCodes).where(lt(deviceCodes.expiresAt, before));
}

export async function insertDeviceCode(db: Db, row: NewDeviceCode): Promise<void> {
  await db.insert(deviceCodes).values(row);
}

export async function findDeviceCode(db: Db, id: string): Promise<DeviceCodeRow | undefined> {
  const [row] = await db.select().from(deviceCodes).where(eq(deviceCodes.id, id)).limit(1);
  return row;
}

export async function findDeviceCodeByUserCode(db: Db, userCode: string): Promise<DeviceCodeRow | undefined> {
  const [row] = await db.select().from(deviceCodes).where(eq(deviceCodes.userCode, userCode)).limit(1);
  return row;
}

/** Records a poll (and a longer interval after slow_down). */
export async function recordDevicePoll(db: Db, id: string, at: Date, intervalSeconds?: number): Promise<void> {
  await db
    .update(deviceCodes)
    .set({ lastPolledAt: at, ...(intervalSeconds === undefined ? {} : { intervalSeconds }) })
    .where(eq(deviceCodes.id, id));
}

/** Approved → used, for exactly one caller: the row it used, or undefined. */
export async function useApprovedDeviceCode(db: Db, id: string, at: Date): Promise<DeviceCodeRow | undefined> {
  const [row] = await db
    .update(deviceCodes)
    .set({ status: "used", lastPolledAt: at })
    .where(and(eq(deviceCodes.id, id), eq(deviceCodes.status, "approved")))
    .returning();
  return row;
}

/** A pending request → approved or denied by an account, for exactly one caller. */
export async function decideDeviceCode(
  db: Db,
  userCode: string,
  status: "approved" | "denied",
  accountId: string,
): Promise<DeviceCodeRow | undefined> {
  const [row] = await db
    .update(deviceCodes)
    .set({ status, accountId })
    .where(and(eq(deviceCodes.userCode, userCode), eq(deviceCodes.status, "pending")))
    .returning();
  return row;
}

export async function denyDeviceCode(db: Db, id: string): Promise<void> {
  await db.update(deviceCodes).set({ status: "denied" }).where(eq(deviceCodes.id, id));
}

/** Records the outcome of each claim of an approved request. */
export async function setDeviceClaims(db: Db, id: string, claims: DeviceClaim[]): Promise<void> {
  await db.update(deviceCodes).set({ claims }).where(eq(deviceCodes.id, id));
}
