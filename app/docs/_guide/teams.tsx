import { limits, TEAM_INVITE_SECONDS } from "@/lib/plans";
import { TEAM_ROLES } from "@/lib/schemas";
import { can, TEAM_ACTIONS, type TeamAction } from "@/lib/teams/roles";
import { CodeBlock } from "../../_components/CodeBlock";
import { Section } from "./parts";

// The guide to teams: creating one, roles (rendered from the one permission table), invitations,
// members and the audit log.

const ACTION_TEXT: Record<TeamAction, string> = {
  read: "read drops, versions, stats, renders and the members",
  deploy: "deploy, replace, append, roll back, set access, run render checks",
  delete: "delete drops",
  domains: "custom domains",
  webhooks: "webhooks",
  vanity: "the vanity subdomain",
  keys: "all of the team's keys",
  invites: "invite people, list and revoke invitations",
  members: "set roles among viewer, member and admin; remove those members",
  audit: "read the audit log",
  billing: "billing",
  owners: "grant, change or remove the owner role",
  deleteTeam: "delete the team",
};

export function TeamSection({ base }: { base: string }) {
  return (
    <Section id="teams" title="Teams">
      <p>
        A team is an account people share (Team plan, {limits.team.maxMembers} members, owners counted, pending
        invitations not). <code>POST /teams</code> <code>{`{"name": "Acme", "slug": "acme"}`}</code> creates one with
        you as its first owner; the slug follows a vanity sub&apos;s pattern and shares one namespace with vanity subs
        (taken: 409). <code>GET /teams</code> lists yours with your role. Someone outside a team gets 404 from its
        routes; a member whose role may not do something gets 403, before anything else is looked at.
      </p>
      {/* Scrolls sideways on a phone; focusable so a keyboard can scroll it too. */}
      <div className="table-wrap" role="region" aria-label="What each role may do" tabIndex={0}>
        <table>
          <caption>What each role may do</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              {TEAM_ROLES.map((r) => (
                <th scope="col" key={r}>
                  {r}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(Object.keys(TEAM_ACTIONS) as TeamAction[]).map((a) => (
              <tr key={a}>
                <th scope="row">{ACTION_TEXT[a]}</th>
                {TEAM_ROLES.map((r) => (
                  <td key={r}>{can(r, a) ? "yes" : "no"}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>
        Invitations: <code>POST /teams/{"{team}"}/invites</code> <code>{`{"role": "member", "email"?: "…"}`}</code>{" "}
        answers a code shown once, usable once within {TEAM_INVITE_SECONDS / 86_400} days; with <code>email</code> only
        the person whose verified login email it is may join (else 403). <code>POST /teams/join</code>{" "}
        <code>{`{"code": "ti_…"}`}</code> joins; an unknown code is 404, a used, revoked or expired one 410{" "}
        <code>gone</code>; past the seats 400 with <code>details.limit</code> <code>max_members</code>. The last owner
        cannot leave or be demoted (409). <code>GET /teams/{"{team}"}/audit</code> lists every change with the person
        and the credential that made it. <code>POST /keys</code> <code>{`{"team": "acme"}`}</code> (logged in) mints a
        team key: it acts as the team, on every route and MCP tool, with your role in the team as it is at each use, and
        stops when you leave or are removed. Viewers read; members deploy, roll back and set access; admins also delete
        and manage domains, webhooks, vanity and keys; owners also billing. The dashboard&apos;s &ldquo;Acting as&rdquo;
        switcher and the OAuth consent page pick a team the same way.
      </p>
      <CodeBlock>{`curl -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\
  -d '{"role":"member"}' ${base}/teams/acme/invites`}</CodeBlock>
    </Section>
  );
}
