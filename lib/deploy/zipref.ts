import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { forgetContentBytes, pinStoredContents, unpinContents } from "../db/contents";
import type { Caller } from "../auth/caller";
import { APP_UPLOAD_MAX_BYTES, type TierLimits } from "../plans";
import { openZipBody, type ZipReference } from "./body";
import { releaseContents, verifyDirectUpload } from "./contents";
import { readWhole } from "./read-whole";
import { whileWatchingOldGarbage } from "./garbage";
import type { InputFile } from "./paths";
import { zipSlots } from "./slots";
import { uploadScope } from "./uploads";

// Zips by reference (`{"zip": {sha256, size}}`): the archive was uploaded after a preflight
// (straight to storage when it is over 4 MB and the store takes direct uploads), so no request
// body to a function carries it. The deploy reads it back from storage as a posted zip's body is
// read (chunks, under the zip limit), checks its size and SHA-256 on the way, and opens it under
// the same rules; the archive then takes a zip slot like a posted zip, for the whole deploy.

/**
 * Runs `task` over the files of the zip archive a deploy names by reference, in one of the
 * process's zip slots. The archive must be stored in the caller's scope (an account's, or an
 * anonymous preflight's with its upload token), of exactly the named size and hash; anything else
 * is 400 with `unusable` (wrong bytes are deleted). Once the deploy succeeds the archive is let
 * go: nothing references it.
 */
export function withZipReference<T>(
  ctx: AppContext,
  caller: Pick<Caller, "account">,
  uploadToken: string | null | undefined,
  ref: ZipReference["zip"],
  limits: TierLimits,
  paid: boolean,
  task: (files: InputFile[]) => Promise<T>,
): Promise<T> {
  return zipSlots.run(async () => {
    const scope = await uploadScope(ctx, caller, uploadToken ?? null);
    if (!scope) throw unusableZip(ref.sha256);
    const { storageRef, verified } = await pinArchive(ctx, scope, ref);
    let done = false;
    try {
      const chunks = verified ?? (await readArchive(ctx, scope, storageRef, ref));
      // Watched: what its unpack promotes is freed during the deploy (./garbage).
      const result = await whileWatchingOldGarbage(() => task(openZipBody(chunks, ref.size, limits, paid)));
      done = true;
      return result;
    } catch (err) {
      // The deploy scan refused what the archive holds: the archive goes too, nothing of it stays stored.
      if (err instanceof ApiError && err.code === "content_refused") done = true;
      throw err;
    } finally {
      if (done) {
        await releaseContents(ctx, scope, [ref.sha256], { purge: true, endHolds: true });
      } else {
        await unpinContents(ctx.db, scope, [ref.sha256]).catch(() => undefined);
      }
    }
  });
}

function unusableZip(sha256: string): ApiError {
  return new ApiError(
    "invalid_request",
    `The zip archive ${sha256} cannot be used (never uploaded by this caller, expired, or of another size or hash); unusable lists its hash.`,
    {
      hint: 'POST /deploy/preflight with {"zip": {"sha256", "size"}}, PUT the archive to the upload target, then deploy {"zip": {"sha256", "size"}} with the same X-Upload-Token.',
      docs: "uploads",
      details: { unusable: [sha256] },
    },
  );
}

/**
 * Pins the archive's stored content (checking a direct upload first): its storage ref, and the
 * archive's bytes when that check just read and verified them (the deploy then opens them
 * without a second read); or 400 unusable.
 */
async function pinArchive(
  ctx: AppContext,
  scope: string,
  ref: ZipReference["zip"],
): Promise<{ storageRef: string; verified?: Uint8Array[] }> {
  try {
    const read: Uint8Array[] = [];
    if (ctx.storage.direct && ref.size > APP_UPLOAD_MAX_BYTES) await verifyDirectUpload(ctx, scope, ref.sha256, read);
    const [pinned] = await pinStoredContents(ctx.db, scope, [ref.sha256], new Date(ctx.now()));
    if (pinned && (pinned.size !== ref.size || !pinned.storageRef)) await unpinContents(ctx.db, scope, [ref.sha256]);
    if (!pinned || pinned.size !== ref.size || !pinned.storageRef) throw unusableZip(ref.sha256);
    return { storageRef: pinned.storageRef, verified: read.length > 0 ? read : undefined };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw upstreamUnavailable("file storage", err);
  }
}

/**
 * The archive's bytes, never more than its declared size (the stored object's, checked when it
 * was pinned), copied as storage streams them into one buffer of that size (a chunk of a network
 * stream holds a socket read buffer larger than itself), checked against its size and SHA-256:
 * a store may skip checksum checks, so bytes that changed since they were verified are deleted
 * and the reference refused.
 */
async function readArchive(
  ctx: AppContext,
  scope: string,
  storageRef: string,
  ref: ZipReference["zip"],
): Promise<Uint8Array[]> {
  let read: Awaited<ReturnType<typeof readWhole>> = null;
  try {
    const body = await ctx.storage.get(storageRef);
    if (body) read = await readWhole(body, ref.size, true);
  } catch (err) {
    throw upstreamUnavailable("file storage", err);
  }
  if (read?.bytes && read.sha256 === ref.sha256) return [read.bytes];
  console.error(`[zipref] stored archive ${scope}/${ref.sha256} is not the bytes its row names; deleted`);
  await ctx.storage.delete(storageRef).catch(() => undefined);
  await forgetContentBytes(ctx.db, scope, ref.sha256).catch(() => undefined);
  throw unusableZip(ref.sha256);
}
