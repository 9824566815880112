"use server";

import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { decideDevice } from "@/lib/device/flow";

// The person's decision on /device, as the session's account.
export async function decideDeviceAction(userCode: string, approve: boolean): Promise<ActionResult<{ user_code: string; status: "approved" | "denied" }>> {
  return runAsSession((ctx, caller) => decideDevice(ctx, caller.account, userCode, approve));
}
