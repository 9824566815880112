import type { reportOf } from "../DeployReport";

// The drop zone's states, from a pick to a published URL, and what a screen reader hears of each.

/** A picked file: its path as picked (folder included) and the browser's File. */
export interface PickedFile {
  path: string;
  file: File;
}

export interface DeployedFile {
  path: string;
  size?: number;
}

/** A picked file the deploy left out, with the reason in words (describeSkip). */
export interface LeftOutFile {
  path: string;
  why: string;
}

export type Phase =
  | { kind: "idle" }
  | { kind: "review"; picked: PickedFile[]; ignoreFiles: Record<string, string>; includeDotfiles: boolean }
  | { kind: "zipping"; files: number }
  | { kind: "hashing"; done: number; files: number }
  | { kind: "uploading"; sent: number; total: number; files: number; done?: number }
  | { kind: "deploying"; files: number }
  | {
      kind: "done";
      url: string;
      slug: string;
      claimToken?: string;
      expiresAt: string | null;
      files: DeployedFile[];
      at: number;
      unchanged?: number;
      report?: ReturnType<typeof reportOf>;
      leftOut: LeftOutFile[];
    }
  | { kind: "error"; error: string; code?: string; hint?: string };

/** The phases of a deploy under way (the pick buttons are disabled meanwhile). */
export type Busy = Extract<Phase, { kind: "zipping" | "hashing" | "uploading" | "deploying" }>;

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/**
 * What a screen reader hears as a deploy goes: one short line per step (upload progress in
 * quarters, not every percent), then the URL. Errors are alerts of their own.
 */
export function announcement(phase: Phase, percent: number): string {
  switch (phase.kind) {
    case "review":
      return "Check the files left out, then publish.";
    case "zipping":
      return `Zipping ${plural(phase.files, "file")}…`;
    case "hashing":
      return `Checking ${plural(phase.files, "file")}…`;
    case "uploading":
      return `Uploading ${plural(phase.files, "file")}: ${Math.floor(percent / 25) * 25}% sent.`;
    case "deploying":
      return `Publishing ${plural(phase.files, "file")}…`;
    case "done":
      return `Published at ${phase.url}`;
    default:
      return "";
  }
}
