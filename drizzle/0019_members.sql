CREATE TABLE "member_access_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"drop_id" text NOT NULL,
	"account_id" text NOT NULL,
	"policy_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "member_access_tokens" ADD CONSTRAINT "member_access_tokens_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_access_tokens" ADD CONSTRAINT "member_access_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_access_tokens_expires_idx" ON "member_access_tokens" USING btree ("expires_at");