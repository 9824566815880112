// A drop's aliases for agents: set_alias, list_aliases, delete_alias, over the same lib/ service
// as PUT/GET/DELETE /drops/{slug}/aliases (a name that points at a retained version and moves;
// <slug>---<name> serves it), so an agent publishes a candidate and moves "staging" to it.
import { deleteDropAlias, listDropAliases, setDropAlias } from "../../drops/aliases";
import { aliasListSchema, aliasSchema } from "../../schemas";
import { z } from "zod";
import { ALIAS_RULE, deleteAliasArgs, listAliasesArgs, setAliasArgs } from "../schemas";
import { accountCaller, READS, tool } from "./define";

export const aliasTools = [
  tool({
    name: "set_alias",
    title: "Point a drop's alias at a version",
    description: `Create or move an alias of one of the account's drops: <slug>---<name> then serves that retained version (noindex), so a person can look at a candidate before it is made live (rollback_drop). Moving it changes what the alias URL serves at once. ${ALIAS_RULE} Requires a key. An unknown or pruned version answers not_found; past the plan's cap, invalid_request with limit max_aliases.`,
    input: setAliasArgs,
    output: aliasSchema,
    // Moves what the alias URL serves; the same call twice leaves the same pointer.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await setDropAlias(call.ctx, c.account, args.slug, args.name, args.version);
      return { structured: r, text: `${r.url} now serves version ${r.version} of ${args.slug}.` };
    },
  }),
  tool({
    name: "list_aliases",
    title: "List a drop's aliases",
    description: `List the aliases of one of the account's drops: name, the version each points at, its URL (<slug>---<name>) and when it last moved. ${ALIAS_RULE} Requires a key.`,
    input: listAliasesArgs,
    output: aliasListSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await listDropAliases(call.ctx, c.account, args.slug);
      const lines = r.aliases.map((a) => `- ${a.name} → version ${a.version}: ${a.url}`);
      return {
        structured: r,
        text: [`${r.aliases.length} alias${r.aliases.length === 1 ? "" : "es"}.`, ...lines].join("\n"),
      };
    },
  }),
  tool({
    name: "delete_alias",
    title: "Delete a drop's alias",
    description:
      "Delete an alias of one of the account's drops: its URL answers 404 from then on, and the version it pointed at may be pruned again. Requires a key; an alias the drop does not have answers not_found.",
    input: deleteAliasArgs,
    output: z.object({ deleted: z.string().describe("The alias deleted.") }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      await deleteDropAlias(call.ctx, c.account, args.slug, args.name);
      return { structured: { deleted: args.name }, text: `Deleted alias ${args.name} of ${args.slug}.` };
    },
  }),
] as const;
