import { finished, type Readable } from "node:stream";

// Server-side stream helpers of the stores (lib/storage/types.ts stays importable by client code).

/**
 * A Node stream of bytes (a store's response body) as a web stream, each chunk handed on as
 * the Node Buffer's own bytes. Readable.toWeb copies every chunk (to detach it from Node's pool):
 * a 25 MB zip archive read back from S3 then cost its copy and, until V8 collected them, the
 * originals too (see lib/plane/adapter.ts for the request body). The Node stream is paused
 * while the web stream holds a chunk nobody read yet; cancelling destroys it.
 */
export function webStreamOf(body: Readable): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        body.on("data", (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) body.pause();
        });
        // Ends, fails or closes early (a premature close is an error here, as in Readable.toWeb).
        finished(body, (err) => {
          if (done) return;
          done = true;
          if (err) controller.error(err);
          else controller.close();
        });
        body.pause();
      },
      pull() {
        body.resume();
      },
      cancel(reason) {
        done = true;
        body.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
