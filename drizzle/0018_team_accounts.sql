-- Each team acts as an account of its own (issuer 'team', subject the team's id), whose plan
-- follows the billing owner's. Teams created before this migration get theirs here.
ALTER TABLE "teams" ADD COLUMN "account_id" text;--> statement-breakpoint
INSERT INTO "accounts" ("id", "issuer", "subject", "plan", "created_at")
SELECT 'acc_' || replace("t"."id", 'team_', 'tm'), 'team', "t"."id", coalesce("o"."plan", 'free'), "t"."created_at"
FROM "teams" "t" LEFT JOIN "accounts" "o" ON "o"."id" = "t"."billing_owner_id"
ON CONFLICT DO NOTHING;--> statement-breakpoint
UPDATE "teams" SET "account_id" = 'acc_' || replace("id", 'team_', 'tm');--> statement-breakpoint
ALTER TABLE "teams" ALTER COLUMN "account_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "teams_account_idx" ON "teams" USING btree ("account_id");
