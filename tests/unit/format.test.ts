import { describe, expect, it } from "vitest";
import { bytes, dateTime, dropState, relative } from "@/app/_components/format";

// Words for times and sizes on the web pages.

const now = Date.parse("2026-11-22T12:00:00Z");
const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();

describe("times in words", () => {
  it.each([
    [30 * 86_400, "in 30 days"],
    [7 * 86_400 - 5, "in 7 days"],
    [90 * 86_400, "in 3 months"],
    [3 * 3600, "in 3 hours"],
    [-21, "21 seconds ago"],
    [-120, "2 minutes ago"],
    [2 * 365 * 86_400, "in 2 years"],
  ])("%i s from now reads %s", (s, words) => {
    expect(relative(at(s), now)).toBe(words);
  });

  it("dates are UTC and the same everywhere", () => {
    expect(dateTime("2026-12-22T09:05:00Z")).toBe("22 Dec 2026, 09:05 UTC");
  });

  it("a drop whose expiry has passed is expired; one without expiry never is", () => {
    expect(dropState(at(-1), now)).toBe("expired");
    expect(dropState(at(0), now)).toBe("expired");
    expect(dropState(at(1), now)).toBe("live");
    expect(dropState(null, now)).toBe("live");
  });
});

describe("sizes", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1536, "1.5 KB"],
    [25 * 1024 * 1024, "25 MB"],
    [3 * 1024 ** 3, "3.0 GB"],
  ])("%i bytes reads %s", (n, words) => {
    expect(bytes(n)).toBe(words);
  });
});
