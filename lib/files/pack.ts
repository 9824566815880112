import { deflateSync, zipSync, type Zippable } from "fflate";
import { limits } from "../plans";

// The zip the project's own clients make (the browser page, when it sends a zip): never one
// the server refuses for its decompression ratio. Runs in the browser as well as in Node.

/** The strictest decompression ratio of any plan (lib/plans.ts): an archive that keeps it passes on every plan. */
export const DEPLOY_ZIP_RATIO = Math.min(...Object.values(limits).map((l) => l.decompressionRatio));

/**
 * Zips files for a deploy. Entries are deflated, except that while the whole would unpack to
 * more than `ratio` times the archive, entries are stored uncompressed instead (each one adds
 * what deflating it saved): the one that saved least while still closing the gap, else the one
 * that saved most, and again. Entries deflating does not shrink are always stored. The
 * archive's headers are left out of the count, so the real ratio is a little under the aim.
 */
export function zipForDeploy(files: Record<string, Uint8Array>, ratio = DEPLOY_ZIP_RATIO) {
  const entries = Object.entries(files).map(([name, data]) => ({
    name,
    data,
    saved: data.byteLength - deflateSync(data, { level: 6 }).byteLength,
  }));
  const unpacked = entries.reduce((n, e) => n + e.data.byteLength, 0);
  let packed = entries.reduce((n, e) => n + e.data.byteLength - Math.max(0, e.saved), 0);
  const stored = new Set(entries.filter((e) => e.saved <= 0).map((e) => e.name));
  let rest = entries.filter((e) => e.saved > 0);
  while (unpacked > ratio * packed && rest.length > 0) {
    const gap = unpacked / ratio - packed;
    const closing = rest.filter((e) => e.saved >= gap).sort((a, b) => a.saved - b.saved)[0];
    const pick = closing ?? rest.reduce((a, b) => (b.saved > a.saved ? b : a));
    stored.add(pick.name);
    packed += pick.saved;
    rest = rest.filter((e) => e !== pick);
  }
  const tree: Zippable = {};
  for (const e of entries) tree[e.name] = [e.data, { level: stored.has(e.name) ? 0 : 6 }];
  return zipSync(tree);
}
