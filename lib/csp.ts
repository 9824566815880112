// Content-Security-Policy on the app host. The proxy gives every response the frame policy (the
// app's pages are never framed by other sites); a page that sends a whole policy of its own, which
// includes the frame policy, is listed here so that the proxy leaves its header alone.

export const FRAME_POLICY = "frame-ancestors 'none'";

/** Pages whose route sets its own Content-Security-Policy (with FRAME_POLICY in it). */
export const OWN_POLICY_PATHS: ReadonlySet<string> = new Set(["/docs/api"]);
