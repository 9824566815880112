import { reportLimits } from "../plans";
import * as R from "../safety/schemas";
import { jsonRequest, jsonResponse, noCredential, type Resource } from "./operation";

// Reports of abuse: POST /reports (no credential). The same fields as the /report form and the
// MCP report_abuse tool.

export const reports = {
  tag: "reports",
  schemas: { ReportBody: R.reportBodySchema, ReportReceived: R.reportReceivedSchema },
  paths: () => ({
    "/reports": {
      post: {
        operationId: "reportDrop",
        summary: "Report a drop (phishing, malware, spam, illegal content, copyright, other; or appeal)",
        description:
          `No credential needed. url must be a drop of this service (slug host, vanity host, active custom domain; any path): ` +
          `another site's URL is 400, a drop that does not exist 404. At most ${reportLimits.perAddressPerHour} reports an hour ` +
          `per address (429 past it); the address is kept only as a keyed hash. The web form at /report posts the same fields.`,
        security: noCredential,
        requestBody: jsonRequest(R.reportBodySchema),
        responses: { 202: jsonResponse(R.reportReceivedSchema, "Received.") },
        errors: [
          "invalid_request",
          "forbidden",
          "not_found",
          "payload_too_large",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
  }),
} satisfies Resource;
