import { zipForDeploy } from "@/lib/files/pack";
import type { HashedFile } from "@/lib/files/upload";
import type { PickedFile } from "./phase";

// Packing: each file's SHA-256 (Web Crypto) for a deploy by content or a zip by reference, or,
// without Web Crypto, one zip of everything.

export interface LocalFile extends HashedFile {
  file: File;
}

/** SHA-256 (hex) of a file with Web Crypto. */
export async function sha256Of(file: File): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The files hashed one by one, paths without `strip`; `onFile` is told how many are done before each. */
export async function hashFiles(
  files: PickedFile[],
  strip: string,
  onFile: (done: number) => void,
): Promise<LocalFile[]> {
  const hashed: LocalFile[] = [];
  for (const f of files) {
    onFile(hashed.length);
    hashed.push({
      path: f.path.slice(strip.length),
      sha256: await sha256Of(f.file),
      size: f.file.size,
      file: f.file,
    });
  }
  return hashed;
}

/**
 * One zip of the files, with entries stored uncompressed where the server's decompression-ratio
 * rule needs it (zipForDeploy), so that rule never refuses it.
 */
export async function zipPicked(files: PickedFile[]): Promise<Blob> {
  const tree: Record<string, Uint8Array> = {};
  for (const f of files) tree[f.path] = new Uint8Array(await f.file.arrayBuffer());
  return new Blob([zipForDeploy(tree)], { type: "application/zip" });
}
