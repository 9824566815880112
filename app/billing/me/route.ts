import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { entitlements } from "@/lib/billing/entitlements";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /billing/me – the account's plan and subscription state
  GET: withAccount(async ({ ctx, caller }) => json(entitlements(ctx, caller.account))),
});
