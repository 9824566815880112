// dropsite teams: the teams you are in, their members and invitations (docs/cli.md).
import { answer, apiClient } from "../core/api";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { print, table } from "../core/output";

const TEAMS_USAGE =
  "dropsite teams list | create <slug> [--name N] | members <team> | invite <team> <role> [email] | join <code> | role <team> <account> <role> | remove <team> <account> | invites <team> | revoke <team> <invite> | audit <team> [--limit N] [--offset N]";

const ROLES = ["viewer", "member", "admin", "owner"] as const;
const isRole = (r: string | undefined): r is (typeof ROLES)[number] => ROLES.some((role) => role === r);

async function cmdTeams(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, a, b, c] = args;
  const usage = () => usageError(TEAMS_USAGE);
  const client = apiClient(target);
  if (sub === "list") {
    if (args.length !== 1) throw usage();
    const res = await answer(client.GET("/teams"));
    if (flags.json) return print(res);
    if (res.teams.length === 0) return void process.stdout.write("No teams.\n");
    table(
      ["SLUG", "ROLE", "NAME"],
      res.teams.map((t) => [t.slug, t.role, t.name]),
    );
    return;
  }
  if (sub === "create") {
    if (args.length !== 2 || a === undefined) throw usage();
    const res = await answer(client.POST("/teams", { body: { slug: a, name: flags.name ?? a } }));
    if (flags.json) return print(res);
    process.stdout.write(`Created team ${res.slug} (${res.name}); you are its owner.\n`);
    return;
  }
  if (sub === "members") {
    if (args.length !== 2 || a === undefined) throw usage();
    const res = await answer(client.GET("/teams/{team}/members", { params: { path: { team: a } } }));
    if (flags.json) return print(res);
    table(
      ["ACCOUNT", "ROLE", "EMAIL", "JOINED"],
      res.members.map((m) => [m.account_id, m.role, m.email ?? "-", m.joined_at]),
    );
    return;
  }
  if (sub === "invite") {
    if (args.length < 3 || args.length > 4 || a === undefined || b === undefined || !isRole(b)) throw usage();
    const res = await answer(
      client.POST("/teams/{team}/invites", {
        params: { path: { team: a } },
        body: { role: b, ...(c === undefined ? {} : { email: c }) },
      }),
    );
    if (flags.json) return print(res);
    process.stdout.write(
      `Invitation ${res.id} (${res.role}), single use, until ${res.expires_at}.\nCode (shown once): ${res.code}\nOr open: ${res.url}\n`,
    );
    return;
  }
  if (sub === "join") {
    if (args.length !== 2 || a === undefined) throw usage();
    const res = await answer(client.POST("/teams/join", { body: { code: a } }));
    if (flags.json) return print(res);
    process.stdout.write(`Joined team ${res.slug} as ${res.role}.\n`);
    return;
  }
  if (sub === "role") {
    if (args.length !== 4 || a === undefined || b === undefined || c === undefined || !isRole(c)) throw usage();
    const res = await answer(
      client.PATCH("/teams/{team}/members/{account}", {
        params: { path: { team: a, account: b } },
        body: { role: c },
      }),
    );
    if (flags.json) return print(res);
    process.stdout.write(`${res.account_id} is now ${res.role}.\n`);
    return;
  }
  if (sub === "remove") {
    if (args.length !== 3 || a === undefined || b === undefined) throw usage();
    const res = await answer(
      client.DELETE("/teams/{team}/members/{account}", { params: { path: { team: a, account: b } } }),
    );
    if (flags.json) return print(res);
    process.stdout.write(`Removed ${res.removed} from ${a}.\n`);
    return;
  }
  if (sub === "invites") {
    if (args.length !== 2 || a === undefined) throw usage();
    const res = await answer(client.GET("/teams/{team}/invites", { params: { path: { team: a } } }));
    if (flags.json) return print(res);
    if (res.invites.length === 0) return void process.stdout.write("No usable invitations.\n");
    table(
      ["ID", "ROLE", "EMAIL", "EXPIRES"],
      res.invites.map((i) => [i.id, i.role, i.email ?? "-", i.expires_at]),
    );
    return;
  }
  if (sub === "revoke") {
    if (args.length !== 3 || a === undefined || b === undefined) throw usage();
    const res = await answer(client.DELETE("/teams/{team}/invites/{id}", { params: { path: { team: a, id: b } } }));
    if (flags.json) return print(res);
    process.stdout.write(`Revoked invitation ${res.revoked}.\n`);
    return;
  }
  if (sub === "audit") {
    if (args.length !== 2 || a === undefined) throw usage();
    // Only the flags given: the server's defaults apply to the others.
    const query = {
      ...(flags.limit === undefined ? {} : { limit: Number(flags.limit) }),
      ...(flags.offset === undefined ? {} : { offset: Number(flags.offset) }),
    };
    const res = await answer(client.GET("/teams/{team}/audit", { params: { path: { team: a }, query } }));
    if (flags.json) return print(res);
    if (res.entries.length === 0) return void process.stdout.write("No entries.\n");
    table(
      ["TIME", "ACTION", "TARGET", "BY", "CREDENTIAL"],
      res.entries.map((e) => [
        e.at,
        e.action,
        e.target,
        e.actor.email ?? e.actor.id,
        `${e.credential.kind}:${e.credential.id.slice(0, 12)}`,
      ]),
    );
    return;
  }
  throw usage();
}

export const teams: Command = {
  usage: TEAMS_USAGE,
  about: `Teams: accounts people share, with roles viewer, member, admin and owner (Team plan to create one).
  list                            the teams you are in, with your role
  create <slug> [--name N]        create a team; you are its owner
  members <team>                  its members and their roles
  invite <team> <role> [email]    a single-use invitation code (7 days); with email, only that person may use it
  join <code>                     join a team with an invitation's code
  role <team> <account> <role>    set a member's role
  remove <team> <account>         remove a member (your own account id: leave the team)
  invites <team>                  its invitations that can still be used
  revoke <team> <invite>          revoke an invitation
  audit <team>                    its audit log, newest first (--limit, --offset)`,
  run: cmdTeams,
};
