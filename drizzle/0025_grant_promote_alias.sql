ALTER TABLE "deploy_grants" ADD COLUMN "promote" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "deploy_grants" ADD COLUMN "alias" text;