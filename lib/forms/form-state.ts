/**
 * What a form's server action answers, shared by the action and the form.
 * Expected failures are results, never exceptions: React clears a form when its
 * action throws, and the visitor would lose what they typed.
 */
export type FormStatus = "idle" | "success" | "invalid" | "failed" | "rate_limited";

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

export function idleState<Values>(values: Values): FormState<Values> {
  return { status: "idle", id: "", values, errors: {} };
}
