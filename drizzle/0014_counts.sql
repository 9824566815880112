CREATE TABLE "drop_stats" (
	"drop_id" text NOT NULL,
	"day" date NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	"visitors" bigint DEFAULT 0 NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"not_found" bigint DEFAULT 0 NOT NULL,
	"bot_requests" bigint DEFAULT 0 NOT NULL,
	"previews" bigint DEFAULT 0 NOT NULL,
	"paths" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"referrers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"countries" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "drop_stats_drop_id_day_pk" PRIMARY KEY("drop_id","day")
);
--> statement-breakpoint
CREATE TABLE "drop_stats_visitors" (
	"drop_id" text NOT NULL,
	"day" date NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "drop_stats_visitors_drop_id_day_hash_pk" PRIMARY KEY("drop_id","day","hash")
);
--> statement-breakpoint
CREATE TABLE "stats_salts" (
	"day" date PRIMARY KEY NOT NULL,
	"salt" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "drop_stats" ADD CONSTRAINT "drop_stats_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_stats_visitors" ADD CONSTRAINT "drop_stats_visitors_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drop_stats_day_idx" ON "drop_stats" USING btree ("day");--> statement-breakpoint
CREATE INDEX "drop_stats_visitors_day_idx" ON "drop_stats_visitors" USING btree ("day");