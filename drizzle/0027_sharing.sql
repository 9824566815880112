CREATE TABLE "drop_viewers" (
	"drop_id" text NOT NULL,
	"email" text NOT NULL,
	"first_seen" timestamp with time zone NOT NULL,
	"last_seen" timestamp with time zone NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "drop_viewers_drop_id_email_pk" PRIMARY KEY("drop_id","email")
);
--> statement-breakpoint
CREATE TABLE "share_links" (
	"id" text PRIMARY KEY NOT NULL,
	"drop_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"host" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "share_links_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "signin_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"drop_id" text NOT NULL,
	"email" text NOT NULL,
	"host" text NOT NULL,
	"policy_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "drops" ADD COLUMN "access_allow" text[];--> statement-breakpoint
ALTER TABLE "drop_viewers" ADD CONSTRAINT "drop_viewers_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signin_tokens" ADD CONSTRAINT "signin_tokens_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drop_viewers_last_seen_idx" ON "drop_viewers" USING btree ("last_seen");--> statement-breakpoint
CREATE INDEX "share_links_drop_idx" ON "share_links" USING btree ("drop_id");--> statement-breakpoint
CREATE INDEX "signin_tokens_expires_idx" ON "signin_tokens" USING btree ("expires_at");