import { clientAddress } from "../../ratelimit/address";
import { reportLimits } from "../../plans";
import { reportAndCheck } from "../../render/reported";
import { reportBodySchema, reportReceivedSchema, type ReportBody } from "../../safety/schemas";
import { tool, type ToolCall } from "./define";

// MCP report_abuse: the same service and fields as POST /reports, with no credential needed.
// The raw arguments go to the service, which validates them.

/** The tool's arguments: the fields of POST /reports, nothing else, with examples for agents. */
const reportAbuseArgs = reportBodySchema.strict().meta({
  examples: [
    {
      url: "https://k3v7example2slug4abcd.drops.example.com/login.html",
      reason: "phishing",
      details: "Imitates a bank's sign-in page.",
    },
  ],
});

const reportAbuseTool = {
  name: "report_abuse",
  title: "Report a drop for abuse",
  description:
    "Report a site published on this service (phishing, malware, spam, illegal, copyright, other) or, as its owner, appeal a disable (reason appeal). " +
    `url must be a drop's address here (any path); details at most ${reportLimits.detailsChars} characters; contact an optional email for the answer. ` +
    `No credential needed; at most ${reportLimits.perAddressPerHour} reports an hour per address. An operator reviews every report within 24 hours.`,
  input: reportAbuseArgs,
  output: reportReceivedSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(_args: ReportBody, call: ToolCall) {
    const r = await reportAndCheck(call.ctx, call.raw, clientAddress(call.req, call.ctx.env));
    return {
      structured: r,
      text: `Report ${r.id} received. An operator reviews it within 24 hours; nothing more is needed from you.`,
    };
  },
};

export const reportTools = [tool(reportAbuseTool)];
