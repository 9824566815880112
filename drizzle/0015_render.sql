CREATE TABLE "render_checks" (
	"drop_id" text PRIMARY KEY NOT NULL,
	"result" jsonb NOT NULL,
	"desktop_id" text,
	"desktop_ref" text,
	"phone_id" text,
	"phone_ref" text,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "render_checks" ADD CONSTRAINT "render_checks_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "render_checks_desktop_idx" ON "render_checks" USING btree ("desktop_id");--> statement-breakpoint
CREATE UNIQUE INDEX "render_checks_phone_idx" ON "render_checks" USING btree ("phone_id");