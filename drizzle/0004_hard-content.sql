ALTER TABLE "deploy_grants" ADD COLUMN "api_key_id" text;--> statement-breakpoint
ALTER TABLE "upload_grants" ADD COLUMN "holder" text;--> statement-breakpoint
ALTER TABLE "deploy_grants" ADD CONSTRAINT "deploy_grants_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upload_grants_holder_idx" ON "upload_grants" USING btree ("holder");