import type { Kysely } from "kysely";

// Migrations are frozen once committed: a later change is a new file.
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable("leads")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("form", "text", (column) => column.notNull())
    .addColumn("dedupe_key", "text", (column) => column.unique())
    .addColumn("payload", "text")
    .addColumn("state", "text", (column) => column.notNull())
    .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("rounds", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (column) => column.notNull())
    .addColumn("next_attempt_at", "bigint", (column) => column.notNull())
    .addColumn("last_failure", "text")
    .addColumn("delivered_at", "bigint")
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "bigint")
    .execute();
  // What a pass asks: the due leads of a state, oldest due first.
  await db.schema.createIndex("leads_due").on("leads").columns(["state", "next_attempt_at"]).execute();
  // What retention asks: delivered leads by age.
  await db.schema.createIndex("leads_delivered").on("leads").columns(["state", "delivered_at"]).execute();

  await db.schema
    .createTable("lead_attempts")
    .addColumn("lead_id", "text", (column) => column.notNull().references("leads.id").onDelete("cascade"))
    .addColumn("number", "integer", (column) => column.notNull())
    .addColumn("at", "bigint", (column) => column.notNull())
    .addColumn("status", "integer")
    .addColumn("failure", "text")
    .addColumn("duration_ms", "integer", (column) => column.notNull())
    .addColumn("sender", "text", (column) => column.notNull())
    .addPrimaryKeyConstraint("lead_attempts_pk", ["lead_id", "number"])
    .execute();
  await db.schema.createIndex("lead_attempts_at").on("lead_attempts").column("at").execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable("lead_attempts").execute();
  await db.schema.dropTable("leads").execute();
}
