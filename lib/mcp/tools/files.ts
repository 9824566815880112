// The tools that read a drop back: list_files and read_file, so an agent reads what is live (or
// any retained version) before it edits.
import { listVersionFiles, readFileForAgent } from "../../drops/readback";
import { READ_FILE_TEXT_BYTES, SIGNED_READ_SECONDS } from "../../plans";
import { readFileResultSchema, versionFilesSchema } from "../../schemas";
import { listFilesArgs, readFileArgs } from "../schemas";
import { accountCaller, READS, tool } from "./define";

/** list_files lists at most this many paths in its text; structuredContent has them all. */
const LISTED_IN_TEXT = 200;

export const fileTools = [
  tool({
    name: "list_files",
    title: "List a drop's files",
    description:
      "List every file of one of the account's drops (the live version, or `version`): path, size, SHA-256 and content type, `_redirects` and `_headers` included, whatever the drop's access mode. read_file reads one. Requires a key; an unknown or pruned version answers not_found.",
    input: listFilesArgs,
    output: versionFilesSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await listVersionFiles(call.ctx, c.account, args.slug, args.version);
      const lines = r.files.slice(0, LISTED_IN_TEXT).map((f) => `- ${f.path} (${f.size} bytes, ${f.content_type})`);
      if (r.files.length > LISTED_IN_TEXT)
        lines.push(`… and ${r.files.length - LISTED_IN_TEXT} more (structuredContent.files lists them all).`);
      return {
        structured: r,
        text: [`Version ${r.version}: ${r.files.length} file${r.files.length === 1 ? "" : "s"}.`, ...lines].join("\n"),
      };
    },
  }),
  tool({
    name: "read_file",
    title: "Read one file of a drop",
    description:
      `Read one file of one of the account's drops (the live version, or \`version\`), whatever the drop's access mode. A text file of at most ${READ_FILE_TEXT_BYTES / (1024 * 1024)} MB comes back as its text; any other file as a resource link to a signed URL that answers its bytes for ${SIGNED_READ_SECONDS / 60} minutes with no credential. ` +
      "Requires a key; a path the version does not have answers not_found.",
    input: readFileArgs,
    output: readFileResultSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await readFileForAgent(call.ctx, c.account, args.slug, args.path, args.version);
      if (r.text !== undefined) return { structured: r, text: r.text };
      return {
        structured: r,
        text: `${r.path} (version ${r.version}, ${r.size} bytes, ${r.content_type}) is not text of at most ${READ_FILE_TEXT_BYTES / (1024 * 1024)} MB: its bytes are at ${r.url} until ${r.expires_at}.`,
        link: {
          type: "resource_link",
          uri: r.url!,
          name: r.path,
          mimeType: r.content_type,
          size: r.size,
          description: `Version ${r.version} of ${r.path}, valid until ${r.expires_at}.`,
        },
      };
    },
  }),
];
