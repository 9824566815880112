import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { webStreamOf } from "@/lib/storage/node-stream";

// A store's Node response body as a web stream without Readable.toWeb's copy of every chunk
// (issue 36 item 6: a zip archive read back from S3 cost twice its size).

describe("webStreamOf", () => {
  it("hands on each chunk as the Node Buffer's own bytes, in order, and ends", async () => {
    const chunks = [Buffer.from("first "), Buffer.from("second "), Buffer.from("third")];
    const reader = webStreamOf(Readable.from(chunks)).getReader();
    const seen: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.push(value);
    }
    expect(Buffer.concat(seen).toString()).toBe("first second third");
    seen.forEach((v, i) => expect(v.buffer).toBe(chunks[i]!.buffer));
  });

  it("pauses the Node stream while a chunk waits unread", async () => {
    const body = new PassThrough();
    const reader = webStreamOf(body).getReader();
    body.write(Buffer.alloc(1000, 1));
    body.write(Buffer.alloc(1000, 2));
    body.write(Buffer.alloc(1000, 3));
    await new Promise((r) => setTimeout(r, 20));
    expect(body.isPaused()).toBe(true);
    const first = await reader.read();
    expect(first.value![0]).toBe(1);
    body.end();
    let rest = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value.byteLength;
    }
    expect(rest).toBe(2000);
  });

  it("fails when the Node stream fails or closes before its end", async () => {
    const failing = new PassThrough();
    const r1 = webStreamOf(failing).getReader();
    failing.destroy(new Error("socket hang up"));
    await expect(r1.read()).rejects.toThrow("socket hang up");

    const cut = new PassThrough();
    const r2 = webStreamOf(cut).getReader();
    cut.write(Buffer.from("part"));
    expect((await r2.read()).value!.byteLength).toBe(4);
    cut.destroy();
    await expect(r2.read()).rejects.toThrow(/premature close/i);
  });

  it("destroys the Node stream when the web stream is cancelled", async () => {
    const body = new PassThrough();
    const reader = webStreamOf(body).getReader();
    body.write(Buffer.from("x"));
    await reader.cancel();
    expect(body.destroyed).toBe(true);
  });
});
