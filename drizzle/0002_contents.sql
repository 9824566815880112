CREATE TABLE "contents" (
	"scope" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"storage_ref" text,
	"pins" integer DEFAULT 0 NOT NULL,
	"pinned_at" timestamp with time zone,
	"hold_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contents_scope_sha256_pk" PRIMARY KEY("scope","sha256")
);
--> statement-breakpoint
CREATE TABLE "upload_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"account_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "scope" text;--> statement-breakpoint
ALTER TABLE "upload_grants" ADD CONSTRAINT "upload_grants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upload_grants_expires_idx" ON "upload_grants" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "files_scope_sha_idx" ON "files" USING btree ("scope","sha256");