import { after } from "next/server";
import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { findDropBySlug } from "../db/queries";
import { findReport } from "../db/safety";
import { submitReport } from "../safety/reports";
import { checkReportedDrop, renderAvailability } from "./service";

// A report starts a render check of the reported drop when a browser is set up, so the operators'
// queue shows what a visitor sees (the screenshot as the drop's thumbnail). The check runs after
// the answer (Next's after(); outside a request of Next, in the background), in the process's
// RENDER_CONCURRENCY queue, and never delays or fails the report. Without a browser nothing runs.

/** Files a report (POST /reports, the /report form, MCP report_abuse) and schedules the check of its drop. */
export async function reportAndCheck(
  ctx: AppContext,
  input: unknown,
  address: string,
): Promise<{ id: string; status: "received" }> {
  const answer = await submitReport(ctx, input, address);
  if (renderAvailability(ctx).available) afterAnswer(() => checkReport(ctx, answer.id));
  return answer;
}

function afterAnswer(task: () => Promise<void>): void {
  try {
    after(task);
  } catch {
    // Not inside a request of Next (tests calling the handlers, scripts): run it without waiting.
    void task();
  }
}

async function checkReport(ctx: AppContext, reportId: string): Promise<void> {
  try {
    const report = await withDb(() => findReport(ctx.db, reportId));
    const drop = report && (await withDb(() => findDropBySlug(ctx.db, report.slug)));
    // A disabled drop answers 451 to the browser: checking it would replace the screenshot the
    // operators decided on with the 451 page.
    if (!drop || drop.id !== report.dropId || drop.disabledAt) return;
    await checkReportedDrop(ctx, drop);
  } catch (err) {
    console.error("[render] the check after a report failed:", err instanceof Error ? err.message : err);
  }
}
