CREATE TABLE "oauth_models" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"account_id" text,
	"client_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "oauth_models_model_id_pk" PRIMARY KEY("model","id")
);
--> statement-breakpoint
ALTER TABLE "oauth_models" ADD CONSTRAINT "oauth_models_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_models_grant_idx" ON "oauth_models" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_models_uid_idx" ON "oauth_models" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "oauth_models_account_idx" ON "oauth_models" USING btree ("account_id","model");--> statement-breakpoint
CREATE INDEX "oauth_models_expires_idx" ON "oauth_models" USING btree ("expires_at");