// The contents the bench serves and deploys.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Site } from "./app";

const LOREM = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>";

/** A 10 KB HTML page titled `title`. */
export const page10k = (title: string) =>
  new TextEncoder().encode(`<!doctype html><title>${title}</title>${LOREM.repeat(160)}`.slice(0, 10 * 1024));

/** The served site: a 10 KB page and a 1 MB binary asset, also written to a folder for nginx and the Node servers. */
export interface ServedSite {
  page: Uint8Array;
  site: Site;
  siteDir: string;
}

export async function servedSite(work: string): Promise<ServedSite> {
  const siteDir = path.join(work, "site");
  await mkdir(siteDir);
  const page = page10k("bench");
  const site = { "index.html": page, "photo.jpg": new Uint8Array(randomBytes(1024 * 1024)) };
  for (const [p, b] of Object.entries(site)) await writeFile(path.join(siteDir, p), b);
  return { page, site, siteDir };
}

/** Deterministic text (a small vocabulary, compresses like prose or code) of about `size` bytes. */
export function prose(size: number, seed: number): Uint8Array {
  const words =
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua function return const".split(
      " ",
    );
  let x = seed || 1;
  const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const parts: string[] = [];
  let n = 0;
  while (n < size) {
    const w = `${words[Math.floor(rnd() * words.length)]}${rnd() < 0.3 ? Math.floor(rnd() * 1e6) : ""}${rnd() < 0.1 ? "\n" : " "}`;
    parts.push(w);
    n += w.length;
  }
  return new TextEncoder().encode(parts.join("").slice(0, size));
}

const MB = 1024 * 1024;
export const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;
