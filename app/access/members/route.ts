import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { routes } from "@/lib/http";
import { membersEntry } from "@/lib/teams/drop-access";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /access/members – a members-only drop's visitor, checked against the session: the login
  // page, the drop host's unlock path with a one-time token, or 403 for someone not a member
  GET: async (req) => membersEntry(await getContext(), (await sessionPerson())?.account ?? null, new URL(req.url)),
});
