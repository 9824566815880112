"use server";

import { runAsPerson, type ActionResult } from "@/lib/auth/actions";
import { decideDevice, type DeviceDecisionResult } from "@/lib/device/flow";

// The person's decision on /device, as the session's account.
export async function decideDeviceAction(
  userCode: string,
  approve: boolean,
): Promise<ActionResult<DeviceDecisionResult>> {
  return runAsPerson((ctx, caller) => decideDevice(ctx, caller.account, userCode, approve));
}
