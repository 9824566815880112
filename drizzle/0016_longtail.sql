CREATE TABLE "drop_changes" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "drop_changes_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"drop_id" text,
	"slug" text,
	"kind" text NOT NULL,
	"ref" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "drop_changes_xid_idx" ON "drop_changes" USING btree ("xid");--> statement-breakpoint
CREATE INDEX "drop_changes_at_idx" ON "drop_changes" USING btree ("at");--> statement-breakpoint
-- Written by hand (drizzle-kit does not generate triggers): every change the serve path's
-- manifests depend on writes a drop_changes row, in the transaction that makes it.
CREATE FUNCTION "drop_changes_of_drop"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "drop_changes" ("drop_id", "slug", "kind") VALUES (OLD."id", OLD."slug", 'drop');
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."slug" IS DISTINCT FROM NEW."slug" THEN
    INSERT INTO "drop_changes" ("drop_id", "slug", "kind") VALUES (OLD."id", OLD."slug", 'drop');
  END IF;
  INSERT INTO "drop_changes" ("drop_id", "slug", "kind") VALUES (NEW."id", NEW."slug", 'drop');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "drops_changed_ins_del" AFTER INSERT OR DELETE ON "drops"
  FOR EACH ROW EXECUTE FUNCTION "drop_changes_of_drop"();
--> statement-breakpoint
CREATE TRIGGER "drops_changed_upd" AFTER UPDATE ON "drops" FOR EACH ROW
  WHEN ((OLD."slug", OLD."owner_id", OLD."name", OLD."file_count", OLD."redeploy_count", OLD."updated_at",
         OLD."expires_at", OLD."purge_at", OLD."access_mode", OLD."access_policy_version", OLD."live_version",
         OLD."site_rules"::text, OLD."claim_token_hash", OLD."disabled_reason", OLD."disabled_at")
    IS DISTINCT FROM
        (NEW."slug", NEW."owner_id", NEW."name", NEW."file_count", NEW."redeploy_count", NEW."updated_at",
         NEW."expires_at", NEW."purge_at", NEW."access_mode", NEW."access_policy_version", NEW."live_version",
         NEW."site_rules"::text, NEW."claim_token_hash", NEW."disabled_reason", NEW."disabled_at"))
  EXECUTE FUNCTION "drop_changes_of_drop"();
--> statement-breakpoint
CREATE FUNCTION "drop_changes_of_domain"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO "drop_changes" ("slug", "kind", "ref") VALUES (OLD."slug", 'domain', OLD."hostname");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "drop_changes" ("slug", "kind", "ref") VALUES (NEW."slug", 'domain', NEW."hostname");
    RETURN NEW;
  END IF;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER "domains_changed_ins_del" AFTER INSERT OR DELETE ON "domains"
  FOR EACH ROW EXECUTE FUNCTION "drop_changes_of_domain"();
--> statement-breakpoint
CREATE TRIGGER "domains_changed_upd" AFTER UPDATE ON "domains" FOR EACH ROW
  WHEN ((OLD."hostname", OLD."slug", OLD."status", OLD."account_id")
    IS DISTINCT FROM (NEW."hostname", NEW."slug", NEW."status", NEW."account_id"))
  EXECUTE FUNCTION "drop_changes_of_domain"();
--> statement-breakpoint
CREATE FUNCTION "drop_changes_of_account"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "drop_changes" ("kind", "ref") VALUES ('account', OLD."id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "accounts_changed_upd" AFTER UPDATE ON "accounts" FOR EACH ROW
  WHEN ((OLD."vanity_sub", OLD."suspended_reason", OLD."suspended_at")
    IS DISTINCT FROM (NEW."vanity_sub", NEW."suspended_reason", NEW."suspended_at"))
  EXECUTE FUNCTION "drop_changes_of_account"();
--> statement-breakpoint
CREATE TRIGGER "accounts_changed_del" AFTER DELETE ON "accounts"
  FOR EACH ROW EXECUTE FUNCTION "drop_changes_of_account"();
