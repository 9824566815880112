import { describe, expect, it } from "vitest";
import { checkCustomHostname, normalizeHostname, withoutPort } from "@/lib/hostname";

// The normal form of custom domains' hostnames and the refusal list of POST /domains.

const own = { appHost: "app.example.com", serveDomain: "drops.example.com:443" };
const name253 = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;

describe("checkCustomHostname", () => {
  const accepted: [string, string, string][] = [
    ["lowercase", "Docs.Example.COM", "docs.example.com"],
    ["a trailing dot removed", "docs.example.com.", "docs.example.com"],
    ["surrounding spaces trimmed", "  docs.example.com ", "docs.example.com"],
    ["an IDN as punycode", "bücher.example", "xn--bcher-kva.example"],
    ["an IDN in capitals", "MÜNCHEN.de", "xn--mnchen-3ya.de"],
    ["punycode kept", "xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["a subdomain of the app's host", "docs.app.example.com", "docs.app.example.com"],
    ["a reserved TLD", "my-site.test", "my-site.test"],
    ["253 characters", name253, name253],
    ["labels of 63 characters", `${"x".repeat(63)}.example.com`, `${"x".repeat(63)}.example.com`],
    ["digits and hyphens", "1-2.example.com", "1-2.example.com"],
  ];
  it.each(accepted)("accepts %s", (_n, input, out) => {
    expect(checkCustomHostname(input, own)).toEqual({ ok: true, hostname: out });
  });

  const refused: [string, string, RegExp][] = [
    ["the app's host", "app.example.com", /own host/],
    ["the app's host with a trailing dot", "APP.example.com.", /own host/],
    ["the serve domain", "drops.example.com", /drop hosts/],
    ["a name under the serve domain", "x.drops.example.com", /drop hosts/],
    ["two labels under the serve domain", "a.b.drops.example.com", /drop hosts/],
    ["an IPv4 literal", "192.0.2.1", /IP address/],
    ["an IPv4 literal with a trailing dot", "192.0.2.1.", /IP address/],
    ["a shorthand IPv4", "0x7f.1", /IP address/],
    ["a numeric last label", "example.123", /not a valid hostname|IP address/],
    ["an IPv6 literal", "[2001:db8::1]", /IP address/],
    ["a bare IPv6 literal", "2001:db8::1", /IP address/],
    ["a single label", "intranet", /single label/],
    ["localhost", "localhost", /single label|localhost/],
    ["a name under localhost", "app.localhost", /localhost/],
    ["the platform's addresses", "x.vercel.app", /platform/],
    ["over 253 characters", `${name253}a`, /longer than 253/],
    ["a label over 63 characters", `${"x".repeat(64)}.example.com`, /longer than 63/],
    ["a wildcard", "*.example.com", /wildcard/],
    ["a port", "example.com:8080", /port/],
    ["a URL", "https://example.com", /port|scheme/],
    ["a path", "example.com/x", /scheme or a path/],
    ["an empty label", "a..example.com", /label|empty/],
    ["two trailing dots", "example.com..", /empty label/],
    ["a leading hyphen", "-a.example.com", /label/],
    ["an underscore", "_dmarc.example.com", /label/],
    ["nothing", "", /empty/],
  ];
  it.each(refused)("refuses %s", (_n, input, why) => {
    const r = checkCustomHostname(input, own);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });

  it("compares the service's own hosts without their ports", () => {
    expect(
      checkCustomHostname("localhost.example", { appHost: "localhost.example:3000", serveDomain: "x.test" }).ok,
    ).toBe(false);
    expect(normalizeHostname("docs.example.com").ok).toBe(true);
  });
});

describe("withoutPort", () => {
  it.each([
    ["example.com:3000", "example.com"],
    ["example.com", "example.com"],
    ["[::1]:3000", "[::1]"],
    ["[::1]", "[::1]"],
  ])("%s → %s", (input, out) => expect(withoutPort(input)).toBe(out));
});
