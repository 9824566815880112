import { describe, expect, it } from "vitest";
import { isSafeMethod, refuseOtherOrigins } from "@/lib/auth/origin";
import { requireJsonBody } from "@/lib/http";
import { ApiError } from "@/lib/errors";

// The one check of a write made with the session cookie (DESIGN "Hardening decisions (round 5)",
// Origins): Origin, when present, is BASE_URL's; Sec-Fetch-Site is neither cross-site nor
// same-site. And a JSON route that takes the cookie reads application/json bodies only.

const env = { BASE_URL: "https://dropsite.example" };
const outcome = (headers: Record<string, string>): string => {
  try {
    refuseOtherOrigins(env, new Headers(headers));
    return "allowed";
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
};

describe("refuseOtherOrigins", () => {
  const table: [string, Record<string, string>, string][] = [
    ["no Origin and no Sec-Fetch-Site (a program, not a browser's page)", {}, "allowed"],
    ["BASE_URL's own origin", { origin: "https://dropsite.example" }, "allowed"],
    [
      "same-origin by Sec-Fetch-Site",
      { origin: "https://dropsite.example", "sec-fetch-site": "same-origin" },
      "allowed",
    ],
    ["a navigation the person typed (Sec-Fetch-Site none)", { "sec-fetch-site": "none" }, "allowed"],
    ["another site", { origin: "https://evil.example" }, "403 forbidden"],
    ["a drop host under the same registrable domain", { origin: "https://abc123.dropsite.example" }, "403 forbidden"],
    ["an opaque origin (sandboxed frame, data: URL)", { origin: "null" }, "403 forbidden"],
    ["the right host over http", { origin: "http://dropsite.example" }, "403 forbidden"],
    ["the right host on another port", { origin: "https://dropsite.example:8443" }, "403 forbidden"],
    ["Sec-Fetch-Site cross-site without Origin", { "sec-fetch-site": "cross-site" }, "403 forbidden"],
    ["Sec-Fetch-Site same-site without Origin", { "sec-fetch-site": "same-site" }, "403 forbidden"],
    [
      "the right Origin with Sec-Fetch-Site same-site",
      { origin: "https://dropsite.example", "sec-fetch-site": "Same-Site" },
      "403 forbidden",
    ],
  ];
  for (const [name, headers, expected] of table) {
    it(`${name}: ${expected}`, () => expect(outcome(headers)).toBe(expected));
  }

  it("GET, HEAD and OPTIONS change nothing; every other method is a write", () => {
    expect(["GET", "HEAD", "OPTIONS"].map(isSafeMethod)).toEqual([true, true, true]);
    expect(["POST", "PUT", "PATCH", "DELETE"].map(isSafeMethod)).toEqual([false, false, false, false]);
  });
});

describe("requireJsonBody", () => {
  const post = (body: string | null, type?: string) =>
    new Request("https://dropsite.example/admin/blocks", {
      method: "POST",
      ...(body === null ? {} : { body }),
      headers: type ? { "content-type": type } : {},
    });
  const result = (req: Request): string => {
    try {
      requireJsonBody(req);
      return "read";
    } catch (err) {
      return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
    }
  };

  it("application/json (with a charset) is read; no body at all passes", () => {
    expect(result(post("{}", "application/json"))).toBe("read");
    expect(result(post("{}", "Application/JSON; charset=utf-8"))).toBe("read");
    expect(result(post(null))).toBe("read");
  });

  it("text/plain, a form, or no Content-Type with a body: 400 invalid_request", () => {
    expect(result(post('{"cidr":"10.0.0.0/8"}', "text/plain"))).toBe("400 invalid_request");
    expect(result(post("cidr=10.0.0.0/8", "application/x-www-form-urlencoded"))).toBe("400 invalid_request");
    expect(result(post('{"cidr":"10.0.0.0/8"}'))).toBe("400 invalid_request");
  });
});
