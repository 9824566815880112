CREATE TABLE "drop_versions" (
	"drop_id" text NOT NULL,
	"version" integer NOT NULL,
	"kind" text NOT NULL,
	"file_count" integer NOT NULL,
	"total_bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"site_rules" jsonb,
	CONSTRAINT "drop_versions_drop_id_version_pk" PRIMARY KEY("drop_id","version")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"caller" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer,
	"body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_caller_key_pk" PRIMARY KEY("caller","key")
);
--> statement-breakpoint
ALTER TABLE "files" DROP CONSTRAINT "files_drop_id_path_pk";--> statement-breakpoint
ALTER TABLE "drops" ADD COLUMN "live_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_drop_id_version_path_pk" PRIMARY KEY("drop_id","version","path");--> statement-breakpoint
ALTER TABLE "drop_versions" ADD CONSTRAINT "drop_versions_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
-- Existing drops: their current files (file rows now version 1) become version 1, the live one.
INSERT INTO "drop_versions" ("drop_id", "version", "kind", "file_count", "total_bytes", "created_at", "site_rules")
SELECT "id", 1, CASE WHEN "redeploy_count" > 0 THEN 'replace' ELSE 'deploy' END, "file_count", "total_bytes", "updated_at", "site_rules" FROM "drops";
