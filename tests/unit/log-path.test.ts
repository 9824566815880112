import { describe, expect, it } from "vitest";
import { logPath } from "@/lib/plane/node";

// The request log's path: one rule masks every segment that carries a secret token.

const token = (prefix: string) => `${prefix}_${"Ab9-_".repeat(8)}xyz`;

describe("logPath masks every secret token in a path by one rule", () => {
  it.each([
    [
      "an upload target",
      `/deploy/uploads/${token("ut")}/${"a".repeat(64)}`,
      `/deploy/uploads/(token)/${"a".repeat(64)}`,
    ],
    ["a one-time deploy URL", `/deploy/once/${token("dg")}`, "/deploy/once/(token)"],
    ["its preflight", `/deploy/once/${token("dg")}/preflight`, "/deploy/once/(token)/preflight"],
    ["a percent-escaped grant", `/deploy/once/%64g_${"A".repeat(43)}`, "/deploy/once/(token)"],
    ["a truncated grant", "/deploy/once/dg_abc", "/deploy/once/(token)"],
    ["an API key in a path", `/drops/${token("sp")}`, "/drops/(token)"],
    ["a claim token in a path", `/x/${token("ct")}/y`, "/x/(token)/y"],
    ["a review link's page", `/review/${token("rl")}`, "/review/(token)"],
    ["an absolute-form target", `http://example.test/deploy/once/${token("dg")}?x=1`, "/deploy/once/(token)"],
  ])("%s", (_name, target, logged) => {
    expect(logPath(target)).toBe(logged);
  });

  it.each([
    ["a drop path", "/assets/app.js", "/assets/app.js"],
    ["a slug append", "/deploy/brave-otter-42", "/deploy/brave-otter-42"],
    ["a query is dropped", "/drops?claim_token=ct_x", "/drops"],
    ["a segment that only contains a prefix", "/files/my_sp_notes.html", "/files/my_sp_notes.html"],
  ])("leaves %s alone", (_name, target, logged) => {
    expect(logPath(target)).toBe(logged);
  });
});
