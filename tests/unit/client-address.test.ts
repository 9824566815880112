import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, type AddressEnv } from "@/lib/ratelimit/address";

// The client address behind 0, 1 and 2 trusted proxies: the right-most address not added by
// a trusted proxy; whatever the client wrote to the left of it is ignored.

const req = (headers: Record<string, string>) =>
  new Request("http://localhost:3000/deploy", { headers: { "x-dropsite-socket-ip": "10.0.0.1", ...headers } });
const env = (over: Partial<AddressEnv> = {}): AddressEnv => ({
  TRUST_PROXY: true,
  TRUST_PROXY_HOPS: 1,
  VERCEL: undefined,
  ...over,
});

describe("clientAddress", () => {
  it("without TRUST_PROXY: the socket address, whatever the headers say", () => {
    expect(
      clientAddress(req({ "x-forwarded-for": "1.1.1.1", "x-real-ip": "2.2.2.2" }), env({ TRUST_PROXY: false })),
    ).toBe("10.0.0.1");
  });

  it("one hop (nginx appending $remote_addr): the right-most entry; a forged left part changes nothing", () => {
    expect(clientAddress(req({ "x-forwarded-for": "203.0.113.9" }), env())).toBe("203.0.113.9");
    expect(clientAddress(req({ "x-forwarded-for": "6.6.6.6, 203.0.113.9" }), env())).toBe("203.0.113.9");
    expect(clientAddress(req({ "x-forwarded-for": "1.1.1.1, 2.2.2.2,3.3.3.3 ,203.0.113.9" }), env())).toBe(
      "203.0.113.9",
    );
  });

  it("two hops (CDN, then nginx): the second entry from the right", () => {
    const two = env({ TRUST_PROXY_HOPS: 2 });
    expect(clientAddress(req({ "x-forwarded-for": "203.0.113.9, 198.51.100.1" }), two)).toBe("203.0.113.9");
    expect(clientAddress(req({ "x-forwarded-for": "6.6.6.6, 203.0.113.9, 198.51.100.1" }), two)).toBe("203.0.113.9");
  });

  it("fewer entries than hops, no header, or garbage where the client should be: the socket address", () => {
    expect(clientAddress(req({ "x-forwarded-for": "203.0.113.9" }), env({ TRUST_PROXY_HOPS: 2 }))).toBe("10.0.0.1");
    expect(clientAddress(req({}), env())).toBe("10.0.0.1");
    expect(clientAddress(req({ "x-forwarded-for": "1.1.1.1, not-an-ip" }), env())).toBe("10.0.0.1");
  });

  it("no X-Forwarded-For and one that is the socket address (Next adds it when absent; the data plane does not) give the same address", () => {
    for (const hops of [1, 2]) {
      const e = env({ TRUST_PROXY_HOPS: hops });
      expect(clientAddress(req({}), e)).toBe(clientAddress(req({ "x-forwarded-for": "10.0.0.1" }), e));
    }
  });

  it("two X-Forwarded-For headers count as one list, in order", () => {
    const h = new Headers({ "x-dropsite-socket-ip": "10.0.0.1" });
    h.append("x-forwarded-for", "6.6.6.6");
    h.append("x-forwarded-for", "203.0.113.9");
    expect(clientAddress(new Request("http://localhost:3000/", { headers: h }), env())).toBe("203.0.113.9");
  });

  it("on Vercel: the platform's x-real-ip", () => {
    expect(clientAddress(req({ "x-forwarded-for": "6.6.6.6", "x-real-ip": "203.0.113.9" }), env({ VERCEL: "1" }))).toBe(
      "203.0.113.9",
    );
  });
});

describe("one address, however it is written (the key of every per-address limit)", () => {
  it("an IPv4-mapped IPv6 address is the IPv4 address; IPv4 is as written", () => {
    expect(addressKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(addressKey("::FFFF:cb00:7109")).toBe("203.0.113.9");
    expect(addressKey("203.0.113.9")).toBe("203.0.113.9");
  });

  it("IPv6 is counted by its /64, written canonically (RFC 5952)", () => {
    const key = "2001:db8:0:1::/64";
    for (const spelling of ["2001:db8:0:1::5", "2001:DB8:0:1:0:0:0:5", "2001:0db8:0000:0001:ffff:ffff:ffff:ffff"])
      expect(addressKey(spelling), spelling).toBe(key);
    expect(addressKey("2001:db8:0:2::5")).toBe("2001:db8:0:2::/64");
    expect(addressKey("::1")).toBe("::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80::/64");
  });

  it("what is no address stays as it is (the socket's 'unknown')", () => {
    expect(addressKey("unknown")).toBe("unknown");
  });

  it("clientAddress answers the key: the socket's mapped IPv4, a forwarded IPv6 by its /64", () => {
    expect(clientAddress(req({ "x-dropsite-socket-ip": "::ffff:10.0.0.1" }), env({ TRUST_PROXY: false }))).toBe(
      "10.0.0.1",
    );
    expect(clientAddress(req({ "x-forwarded-for": "2001:DB8::1:2" }), env())).toBe("2001:db8::/64");
    expect(clientAddress(req({ "x-real-ip": "::ffff:203.0.113.9" }), env({ VERCEL: "1" }))).toBe("203.0.113.9");
  });
});
