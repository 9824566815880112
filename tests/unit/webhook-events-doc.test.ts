import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "@/lib/patterns";

// docs/webhooks.md lists the events a receiver can get: the same list, in the same order, as
// the code's WEBHOOK_EVENTS (lib/patterns.ts), which the outbox, schemas and MCP texts read.

const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/webhooks.md"), "utf8");

/** The event types of the table under "## Events": the first column of each row. */
function documentedEvents(markdown: string): string[] {
  const section = /^## Events\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? "";
  return [...section.matchAll(/^\| `([a-z_.]+)` \|/gm)].flatMap((m) => (m[1] ? [m[1]] : []));
}

describe("docs/webhooks.md's event list", () => {
  it("is the code's WEBHOOK_EVENTS, in order", () => {
    expect(documentedEvents(doc)).toEqual(WEBHOOK_EVENT_TYPES);
  });

  it("is read from the table (a missing row is seen)", () => {
    const without = doc.replace(/^\| `drop\.expired` \|.*\n/m, "");
    expect(documentedEvents(without)).not.toEqual(WEBHOOK_EVENT_TYPES);
    expect(documentedEvents(without)).toHaveLength(WEBHOOK_EVENT_TYPES.length - 1);
  });
});
