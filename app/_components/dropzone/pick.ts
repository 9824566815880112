import { ignoreFilesAmong, selectFiles, type Selection } from "@/lib/files/ignore";
import type { PickedFile } from "./phase";

// Picking: the files of a drop (folders walked through the entries API) or of a file input, and
// the selection lib/files/ignore.ts makes of them with the ignore files found among them.

async function readEntry(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: `${prefix}${entry.name}`, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await readEntry(child, `${prefix}${entry.name}/`, out);
  }
}

/** The files of a drop: folders with their paths where the browser gives entries, else the bare files. */
export async function pickedFromDrop(data: DataTransfer): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  const entries = Array.from(data.items)
    .map((i) => i.webkitGetAsEntry?.())
    .filter((x): x is FileSystemEntry => !!x);
  if (entries.length > 0) {
    for (const entry of entries) await readEntry(entry, "", out);
  } else {
    for (const file of Array.from(data.files)) out.push({ path: file.name, file });
  }
  return out;
}

/** The files of a file or folder input, with their folder paths. */
export const pickedFromInput = (list: FileList): PickedFile[] =>
  Array.from(list).map((file) => ({ path: file.webkitRelativePath || file.name, file }));

/** The ignore files among the picked ones (path → text), and what they and the default rule leave out. */
export async function selectPicked(
  picked: PickedFile[],
): Promise<{ ignoreFiles: Record<string, string>; selection: Selection<PickedFile> }> {
  const found = ignoreFilesAmong(picked.map((p) => p.path));
  const ignoreFiles: Record<string, string> = {};
  for (const path of found) ignoreFiles[path] = await picked.find((p) => p.path === path)!.file.text();
  return { ignoreFiles, selection: selectFiles(picked, ignoreFiles) };
}
