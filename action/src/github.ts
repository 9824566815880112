// The pull request's one comment on GitHub, through @actions/github's Octokit (GITHUB_API_URL is
// its base). The Action edits only a comment that opens with its marker AND was written by the
// token's own identity: GET /user for a person's token, GraphQL `viewer` for an app's
// installation token (GITHUB_TOKEN), which GET /user refuses.
import { getOctokit } from "@actions/github";
import { hasMarker } from "./comment";

type Octokit = ReturnType<typeof getOctokit>;

export class PullRequestComment {
  private readonly octokit: Octokit;
  private selfId: number | undefined;

  constructor(
    token: string,
    private readonly owner: string,
    private readonly repo: string,
    private readonly number: number,
    private readonly name: string,
  ) {
    this.octokit = getOctokit(token);
  }

  /** The numeric id of the account the token acts as (a user's, or an app's bot). */
  private async self(): Promise<number> {
    if (this.selfId !== undefined) return this.selfId;
    try {
      this.selfId = (await this.octokit.rest.users.getAuthenticated()).data.id;
    } catch (err) {
      if ((err as { status?: number }).status !== 403) throw err;
      const { viewer } = await this.octokit.graphql<{ viewer: { databaseId: number } }>(
        "query { viewer { databaseId } }",
      );
      this.selfId = viewer.databaseId;
    }
    return this.selfId;
  }

  /** The Action's existing comment on this pull request: its marker, written by the token's identity. */
  async find(): Promise<number | null> {
    const me = await this.self();
    const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
      owner: this.owner,
      repo: this.repo,
      issue_number: this.number,
      per_page: 100,
    });
    return comments.find((c) => c.user?.id === me && hasMarker(c.body, this.name))?.id ?? null;
  }

  /** Edits the Action's comment, or creates it when there is none (and `create`). */
  async write(body: string, create = true): Promise<"created" | "updated" | "none"> {
    const id = await this.find();
    if (id !== null) {
      await this.octokit.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: id, body });
      return "updated";
    }
    if (!create) return "none";
    await this.octokit.rest.issues.createComment({
      owner: this.owner,
      repo: this.repo,
      issue_number: this.number,
      body,
    });
    return "created";
  }
}
