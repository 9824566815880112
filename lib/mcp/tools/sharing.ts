// Sharing for agents: create_share_link, over the same lib/ service as POST
// /drops/{slug}/share-links (set_access with mode "emails" is in drops.ts).
import { createShareLink } from "../../drops/share-links";
import { SHARE_LINK_MAX_HOURS } from "../../plans";
import { shareLinkCreatedSchema } from "../../schemas";
import { createShareLinkArgs } from "../access-schemas";
import { accountCaller, tool } from "./define";

export const sharingTools = [
  tool({
    name: "create_share_link",
    title: "Make a link that opens a protected drop",
    description: `Make a share link for one of the account's password or emails drops: a URL on the drop's host that lets whoever opens it see the drop, for expires_in_hours (a whole number, 1 to ${SHARE_LINK_MAX_HOURS}). The URL is shown once; give it to your human. Revoked with DELETE /drops/{slug}/share-links/{id} and by any change of the drop's access mode. A public drop answers invalid_request; a team viewer's key, or a disabled drop, forbidden. Requires a key.`,
    input: createShareLinkArgs,
    output: shareLinkCreatedSchema,
    // The URL carries the link's token: an idempotent replay keeps it sealed, never in plain.
    sealed: "url",
    // Each call makes another link.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await createShareLink(call.ctx, c.account, args.slug, { expires_in_hours: args.expires_in_hours });
      return { structured: r, text: `Share link for ${args.slug} (until ${r.expires_at}): ${r.url}` };
    },
  }),
] as const;
