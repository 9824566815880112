import { describe, expect, it } from "vitest";
import { previewBlocker } from "@/app/dashboard/preview";

// The drop page's preview frame is not drawn where it would only show an error page; the owner
// reads why instead.

const live = {
  access: "public" as const,
  files: [{ path: "index.html", size: 10, content_type: "text/html; charset=utf-8" }],
  files_truncated: false,
  redirect_rules: 0,
  rules: { redirects: [], headers: [] },
  disabled: null,
};

describe("previewBlocker", () => {
  it("frames a live public drop with an index.html", () => {
    expect(previewBlocker(live, "live")).toBeNull();
  });

  it("says a disabled drop answers 451 instead of framing it, before any other reason", () => {
    const disabled = {
      ...live,
      access: "password" as const,
      disabled: { reason: "phishing", at: "2026-12-01T00:00:00Z" },
    };
    expect(previewBlocker(disabled, "expired")).toMatch(/disabled this drop \(phishing\).*451/);
  });

  it("says a suspended owner's drops answer 451", () => {
    expect(previewBlocker(live, "live", true)).toMatch(/account is suspended.*451/);
  });
});
