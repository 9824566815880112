import { ApiError } from "../errors";

// A content is its SHA-256 and its size: one hash names bytes of one length only.

/**
 * The distinct hashes of files named by hash and size, each with its one size: a content is its
 * hash and its size, so one hash named with two sizes is refused (400) rather than one winning.
 */
export function oneSizePerHash(entries: Array<[string, { sha256: string; size: number }]>): Array<[string, number]> {
  const sizes = new Map<string, { size: number; path: string }>();
  for (const [path, f] of entries) {
    const seen = sizes.get(f.sha256);
    if (seen && seen.size !== f.size) {
      throw new ApiError(
        "invalid_request",
        `${JSON.stringify(seen.path)} and ${JSON.stringify(path)} name the content ${f.sha256} with two sizes (${seen.size} and ${f.size} bytes).`,
        {
          hint: "A hash names one content of one size: send each file's real size.",
          docs: "uploads",
        },
      );
    }
    sizes.set(f.sha256, seen ?? { size: f.size, path });
  }
  return [...sizes].map(([sha256, { size }]) => [sha256, size]);
}
