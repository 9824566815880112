// dropsite comments and review-link: what people said on a drop's previews, and a link that lets
// a person say it (the /drops/{slug}/comments and review-links routes).
import { answer, apiClient } from "../core/api";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { print } from "../core/output";

const COMMENTS_USAGE = "dropsite comments <slug> [--all]";
const REVIEW_LINK_USAGE = "dropsite review-link <slug>";

async function cmdComments(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(COMMENTS_USAGE);
  const res = await answer(
    apiClient(target).GET("/drops/{slug}/comments", {
      params: { path: { slug }, query: { status: flags.all ? "all" : "open" } },
    }),
  );
  if (flags.json) return print(res);
  if (res.comments.length === 0)
    return void process.stdout.write(`${slug} has no ${flags.all ? "" : "open "}comments\n`);
  const out: string[] = [];
  for (const c of res.comments) {
    const where = c.pin ? `pin ${c.pin.x},${c.pin.y} @${c.pin.width}` : "page";
    const pruned = c.version_pruned ? " (pruned)" : "";
    out.push(`${c.id} [${c.status}] v${c.version}${pruned} ${c.path} ${where} — ${c.author.name}`);
    out.push(`  ${JSON.stringify(c.body)}`);
    for (const r of c.replies) out.push(`  ↳ ${r.author.name}: ${JSON.stringify(r.body)}`);
  }
  if (res.total > res.comments.length) out.push(`(${res.total - res.comments.length} more not shown)`);
  process.stdout.write(`${out.join("\n")}\n`);
}

async function cmdReviewLink(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw usageError(REVIEW_LINK_USAGE);
  const res = await answer(
    apiClient(target).POST("/drops/{slug}/review-links", { params: { path: { slug } }, body: {} }),
  );
  if (flags.json) return print(res);
  process.stdout.write(`${res.url}\n`);
  process.stderr.write(`Valid until ${res.expires_at}; the link is shown only now.\n`);
}

export const comments: Command = {
  usage: COMMENTS_USAGE,
  about:
    "The comments people pinned on a drop's previews (open ones; --all adds resolved), each with its page, version, pin and replies.",
  run: cmdComments,
};

export const reviewLink: Command = {
  usage: REVIEW_LINK_USAGE,
  about:
    "Mint a review link (valid 7 days): whoever opens it can pin comments on the drop's pages, nothing else. Printed once.",
  run: cmdReviewLink,
};
