import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { formNames, type FormName } from "@/server/forms/registry";

/**
 * A lead that passed every check and has not been acknowledged by its webhook
 * yet. It is kept from before its first attempt until a 2xx, then deleted:
 * nothing personal outlives the delivery.
 */
export type Lead = {
  /** The webhook-id every attempt carries, so the receiver drops duplicates. */
  id: string;
  form: FormName;
  /** The form and the values sent, hashed: a visitor's retry finds the copy still pending. */
  key: string;
  /** The webhook body, exactly as the first attempt sent it. */
  payload: Record<string, unknown>;
  createdAt: number;
  /** HTTP attempts made so far, by the visitor's request and by redelivery. */
  attempts: number;
  /** Redelivery rounds done after the first failure: the position in the schedule. */
  rounds: number;
  nextAttemptAt: number;
  lastFailure?: string;
  /** Dead: the schedule is spent; kept until an operator retries or drops it. */
  state: "pending" | "dead";
};

const leadSchema = z.object({
  id: z.string().regex(/^msg_[\w-]+$/),
  form: z.enum(formNames as [FormName, ...FormName[]]),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  payload: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
  attempts: z.number().int().min(0),
  rounds: z.number().int().min(0),
  nextAttemptAt: z.number(),
  lastFailure: z.string().optional(),
  state: z.enum(["pending", "dead"]),
});

/** A stored lead read back, or undefined for anything else (a truncated or foreign file, a stray key). */
export function parseLead(text: string | null | undefined): Lead | undefined {
  if (!text) return undefined;
  try {
    const parsed = leadSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The same form with the same values (already normalised by the schema) has the same key. */
export function leadKey(form: FormName, payload: Record<string, unknown>) {
  return createHash("sha256").update(`${form}\n${JSON.stringify(payload)}`).digest("hex");
}

/** Where a lead stands, for the operator: no values. */
export function leadFacts(lead: Lead, now = Date.now()) {
  return {
    form: lead.form,
    webhookId: lead.id,
    attempts: lead.attempts,
    ageSeconds: Math.round((now - lead.createdAt) / 1000),
  };
}

/** The `lead_pending` log line's facts: where the lead stands and when it is tried next. */
export function pendingFacts(lead: Lead) {
  return { event: "lead_pending", ...leadFacts(lead), reason: lead.lastFailure, nextAttemptAt: new Date(lead.nextAttemptAt).toISOString() };
}
