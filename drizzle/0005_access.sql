ALTER TABLE "drops" ADD COLUMN "access_mode" text DEFAULT 'public' NOT NULL;--> statement-breakpoint
ALTER TABLE "drops" ADD COLUMN "access_password_hash" text;--> statement-breakpoint
ALTER TABLE "drops" ADD COLUMN "access_policy_version" integer DEFAULT 0 NOT NULL;