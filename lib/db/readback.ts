import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./client";
import { dropVersions, files, type DropVersionRow, type FileRow } from "./schema";

// A version's files read back (archives, the files list, one file's bytes): what a retained
// version holds, path by path, with the ref of its stored bytes.

export type VersionFile = Pick<FileRow, "path" | "size" | "sha256" | "contentType" | "storageRef">;

const fileColumns = {
  path: files.path,
  size: files.size,
  sha256: files.sha256,
  contentType: files.contentType,
  storageRef: files.storageRef,
};

/** The version's row while it is retained; undefined once pruned (or never made). */
export async function findVersion(
  db: Db,
  dropId: string,
  version: number,
): Promise<Pick<DropVersionRow, "version" | "createdAt"> | undefined> {
  const [row] = await db
    .select({ version: dropVersions.version, createdAt: dropVersions.createdAt })
    .from(dropVersions)
    .where(and(eq(dropVersions.dropId, dropId), eq(dropVersions.version, version)))
    .limit(1);
  return row;
}

/** Every file of one version, by path (a version holds at most the plan's filesPerDrop). */
export async function versionFiles(db: Db, dropId: string, version: number): Promise<VersionFile[]> {
  return db
    .select(fileColumns)
    .from(files)
    .where(and(eq(files.dropId, dropId), eq(files.version, version)))
    .orderBy(asc(files.path));
}

/** One file of one version, or undefined. */
export async function versionFile(
  db: Db,
  dropId: string,
  version: number,
  path: string,
): Promise<VersionFile | undefined> {
  const [row] = await db
    .select(fileColumns)
    .from(files)
    .where(and(eq(files.dropId, dropId), eq(files.version, version), eq(files.path, path)))
    .limit(1);
  return row;
}
