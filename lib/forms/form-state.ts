import type { PhonePolicy } from "./phone";

// Expected failures are results, never exceptions: React clears a form when its action throws.
/** success: the post was kept. A sign-up is answered alike however it was kept: it tells no one about a number. */
export type FormStatus = "idle" | "success" | "invalid" | "failed" | "rate_limited";

/** The outcomes that keep what was sent: the form is cleared, and a post without JavaScript gets a result page. */
export const keptStatuses = ["success"] as const satisfies readonly FormStatus[];
export const isKept = (status: FormStatus): status is (typeof keptStatuses)[number] =>
  (keptStatuses as readonly FormStatus[]).includes(status);

export type FieldErrors<Values> = Partial<Record<Extract<keyof Values, string>, string>>;

export type FormState<Values> = {
  status: FormStatus;
  /** New for every answer, so two identical outcomes in a row each get their toast. */
  id: string;
  /** What the visitor sent, so a failed post re-renders with it; empty after success. */
  values: Values;
  errors: FieldErrors<Values>;
  /** With "rate_limited": how long until the visitor may try again. */
  retryAfterSeconds?: number;
};

/** A form's server action, bound to its form's name on the server (server/forms/serve-form.ts). */
export type FormAction<Values> = (previous: FormState<Values>, formData: FormData) => Promise<FormState<Values>>;

/**
 * What the server hands a form's component when a page shows it: its action,
 * and for a form that asks consent to text, the countries whose numbers it
 * takes and the version of the consent text the page shows (for the record).
 */
export type ServedForm<Values> = { action: FormAction<Values>; consent?: ConsentServed };
export type ConsentServed = { phonePolicy: PhonePolicy; disclosureVersion: string };

export function idleState<Values>(values: Values): FormState<Values> {
  return { status: "idle", id: "", values, errors: {} };
}

/**
 * The field the page's script adds to every post it sends. A post without it
 * came from the browser alone: its kept outcome ends in a redirect to the
 * form's result page (post/redirect/get), so a reload posts nothing.
 */
export const scriptPostField = "sent_by_script";
