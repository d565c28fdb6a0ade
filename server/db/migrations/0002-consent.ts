import type { Kysely } from "kysely";

// Migrations are frozen once committed: a later change is a new file.
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable("disclosures")
    .addColumn("version", "text", (column) => column.primaryKey())
    .addColumn("text", "text", (column) => column.notNull())
    .addColumn("first_recorded_at", "bigint", (column) => column.notNull())
    .execute();

  // No foreign key to leads: dropping or delivering a lead never deletes its consent.
  await db.schema
    .createTable("consents")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("phone", "text", (column) => column.notNull())
    .addColumn("consented_at", "bigint", (column) => column.notNull())
    .addColumn("ip", "text")
    .addColumn("user_agent", "text")
    .addColumn("page_url", "text")
    .addColumn("javascript", "integer", (column) => column.notNull())
    .addColumn("lead_id", "text", (column) => column.notNull())
    .addColumn("disclosure_version", "text", (column) => column.notNull().references("disclosures.version"))
    .execute();
  await db.schema.createIndex("consents_phone").on("consents").columns(["phone", "consented_at"]).execute();
  await db.schema.createIndex("consents_at").on("consents").column("consented_at").execute();

  await db.schema
    .createTable("consent_revocations")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("phone", "text", (column) => column.notNull())
    .addColumn("revoked_at", "bigint", (column) => column.notNull())
    .addColumn("channel", "text", (column) => column.notNull())
    .addColumn("source", "text", (column) => column.notNull())
    // The workflow's webhook-id: a replayed call records nothing twice.
    .addColumn("message_id", "text", (column) => column.unique())
    .execute();
  await db.schema.createIndex("consent_revocations_phone").on("consent_revocations").columns(["phone", "revoked_at"]).execute();
  await db.schema.createIndex("consent_revocations_at").on("consent_revocations").column("revoked_at").execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable("consent_revocations").execute();
  await db.schema.dropTable("consents").execute();
  await db.schema.dropTable("disclosures").execute();
}
