import * as S from "../schemas";
import { jsonRequest, jsonResponse, noCredential, type Resource } from "./operation";

// Device authorisation (RFC 8628) for agents without a key: POST /device/authorize, then poll
// POST /device/token.

export const device = {
  tag: "account",
  schemas: {
    DeviceAuthorization: S.deviceAuthorizationSchema,
    DeviceAuthorizeBody: S.deviceAuthorizeBodySchema,
    DeviceTokenBody: S.deviceTokenBodySchema,
    DeviceToken: S.deviceTokenSchema,
  },
  paths: ({ rate }) => ({
    "/device/authorize": {
      post: {
        operationId: "deviceAuthorize",
        summary: "Start a device authorisation (RFC 8628) for an agent without a key",
        description: `Show the person verification_uri_complete; poll POST /device/token every interval seconds. Requests expire after expires_in seconds. ${rate.deviceAuthorize.max} per ${rate.deviceAuthorize.windowSeconds} seconds per client address. An optional JSON body lists anonymous drops to claim in the same approval; their outcomes come with the key.`,
        security: noCredential,
        requestBody: jsonRequest(S.deviceAuthorizeBodySchema, false),
        responses: { 200: jsonResponse(S.deviceAuthorizationSchema) },
        errors: ["invalid_request", "rate_limited", "upstream_unavailable"],
      },
    },
    "/device/token": {
      post: {
        operationId: "deviceToken",
        summary: "Poll a device authorisation; on approval, a new sp_ key once",
        description:
          "400 authorization_pending until the person approves on /device, 400 slow_down when polled faster than interval, 400 expired_token after expiry or once the key was issued, 403 access_denied when denied.",
        security: noCredential,
        requestBody: jsonRequest(S.deviceTokenBodySchema),
        responses: { 200: jsonResponse(S.deviceTokenSchema) },
        errors: [
          "invalid_request",
          "authorization_pending",
          "slow_down",
          "expired_token",
          "access_denied",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
  }),
} satisfies Resource;
