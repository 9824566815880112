CREATE TABLE "deploy_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"ttl_seconds" integer,
	"name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "device_codes" ADD COLUMN "claims" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "deploy_grants" ADD CONSTRAINT "deploy_grants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deploy_grants_expires_idx" ON "deploy_grants" USING btree ("expires_at");