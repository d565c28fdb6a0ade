import "server-only";
import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import type { LeadsTable } from "@/server/db/schema";
import { isFormName, type FormName } from "@/lib/forms";

/** A lead, as the database keeps it and every sender sends it: `payload` is the body, the bytes every attempt posts. */
export type LeadRow = Selectable<LeadsTable>;

// JSON.parse(null) is null: a row emptied by retention reads as no object, like any other.
function objectOf(json: string | null) {
  try {
    const value: unknown = JSON.parse(json as string);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A row this site wrote and may send: a form of ours, a webhook-id, a payload that is a JSON object. */
export function sendable(row: LeadRow): row is LeadRow & { form: FormName; payload: string } {
  return isFormName(row.form) && /^msg_[\w-]+$/.test(row.id) && objectOf(row.payload) !== undefined;
}

/** The webhook's values a row holds, or undefined for a row nobody should send. */
export const valuesOf = (row: LeadRow) => (sendable(row) ? objectOf(row.payload) : undefined);

/** The same form with the same values (already normalised by the schema) has the same key. */
export function leadKey(form: string, payload: Record<string, unknown>) {
  return createHash("sha256")
    .update(`${form}\n${JSON.stringify(payload)}`)
    .digest("hex");
}

/** Where a lead stands, for the operator's log: no values. */
export function leadFacts(lead: Pick<LeadRow, "form" | "id" | "attempts" | "created_at">, now: number) {
  return {
    form: lead.form,
    webhookId: lead.id,
    attempts: lead.attempts,
    ageSeconds: Math.round((now - lead.created_at) / 1000),
  };
}
