import type { Kysely } from "kysely";

// Migrations are frozen once committed: a later change is a new file.
export async function up(db: Kysely<unknown>) {
  // The last alert of each kind for each form: every instance reads it, so one interval holds across them.
  await db.schema
    .createTable("alerts")
    .addColumn("kind", "text", (column) => column.notNull())
    .addColumn("form", "text", (column) => column.notNull())
    .addColumn("last_sent_at", "bigint", (column) => column.notNull())
    .addPrimaryKeyConstraint("alerts_pk", ["kind", "form"])
    .execute();

  // Whether a form's receiver is failing, and since when: set by the first lead kept after a success, cleared by a delivery.
  await db.schema
    .createTable("receivers")
    .addColumn("form", "text", (column) => column.primaryKey())
    .addColumn("failing_since", "bigint")
    .execute();

  // What the health figures ask: a form's last delivery.
  await db.schema.createIndex("leads_form_delivered").on("leads").columns(["form", "state", "delivered_at"]).execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropIndex("leads_form_delivered").execute();
  await db.schema.dropTable("receivers").execute();
  await db.schema.dropTable("alerts").execute();
}
