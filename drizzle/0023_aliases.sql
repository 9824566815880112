CREATE TABLE "drop_aliases" (
	"drop_id" text NOT NULL,
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drop_aliases_drop_id_name_pk" PRIMARY KEY("drop_id","name")
);
--> statement-breakpoint
ALTER TABLE "drop_aliases" ADD CONSTRAINT "drop_aliases_drop_id_drops_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drops"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand (drizzle-kit does not generate triggers): an alias created, moved or deleted
-- is a change of its drop for the serve path's change feed (drizzle/0016_longtail.sql), so every
-- instance forgets the alias host's manifest within the feed's bound.
CREATE FUNCTION "drop_changes_of_alias"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d text := COALESCE(NEW."drop_id", OLD."drop_id");
BEGIN
  INSERT INTO "drop_changes" ("drop_id", "slug", "kind")
    SELECT d, (SELECT "slug" FROM "drops" WHERE "id" = d), 'drop';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "drop_aliases_changed" AFTER INSERT OR UPDATE OR DELETE ON "drop_aliases"
  FOR EACH ROW EXECUTE FUNCTION "drop_changes_of_alias"();
--> statement-breakpoint
-- Names with "---" are refused from now on (they would read as preview hosts); list any that
-- exist (none expected): such a drop keeps serving at its slug's host.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT "slug", "name" FROM "drops" WHERE "name" LIKE '%---%' LOOP
    RAISE NOTICE 'drop % has a name with ---: %', r."slug", r."name";
  END LOOP;
END $$;
