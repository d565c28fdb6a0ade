"use client";

import { startTransition, useActionState, useCallback } from "react";
import { useForm, type Resolver } from "react-hook-form";
import { FormOutcome } from "@/components/forms/form-outcome";
import { HoneypotField } from "@/components/forms/honeypot-field";
import { idleState } from "@/components/forms/form-state";
import { useFormFeedback } from "@/components/forms/use-form-feedback";
import { buttonClass } from "@/components/ui/button-styles";
import { controlClass, describedByError, Field, FieldError } from "@/components/ui/form-controls";
import { joinWaitlist } from "@/server/actions/join-waitlist";
import { emptySignupValues, signupFields as f, signupMessages } from "./signup-content";
import type { Signup, SignupInput } from "./signup-schema";

// The schema and its resolver load when the visitor first focuses the form (or
// submits it): the page's first load carries no zod.
const loadResolver = () => import("./signup-resolver");
const resolver: Resolver<SignupInput, unknown, Signup> = async (values, context, options) =>
  (await loadResolver()).signupResolver(values, context, options);

/**
 * The waitlist form. With JavaScript, react-hook-form checks it with the shared
 * schema on submit and again on every change, and focuses the first bad field;
 * the server action runs the same schema. Without JavaScript the form posts to
 * the same action and the page comes back with the errors or the outcome.
 */
export function SignupForm() {
  const [state, formAction, pending] = useActionState(joinWaitlist, idleState(emptySignupValues));
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors: clientErrors },
  } = useForm<SignupInput, unknown, Signup>({
    resolver,
    defaultValues: state.values,
    mode: "onSubmit",
    reValidateMode: "onChange",
    shouldFocusError: true,
  });
  const clear = useCallback(() => reset(emptySignupValues), [reset]);
  const { markSentWithScript, showInline } = useFormFeedback(state, {
    messages: signupMessages,
    event: "Waitlist Signup",
    onSuccess: clear,
  });

  const { values } = state;
  const errors = {
    name: clientErrors.name?.message ?? state.errors.name,
    phone: clientErrors.phone?.message ?? state.errors.phone,
    consent: clientErrors.consent?.message ?? state.errors.consent,
  };
  const firstError = (["name", "phone", "consent"] as const).find((name) => state.errors[name]);

  // react-hook-form prevents the native post, so React does not reset the
  // form: a failed request leaves every value, the checkbox included.
  // The submit event's target is the form; currentTarget is gone once validation has awaited.
  const onSubmit = handleSubmit((_valid, event) => {
    if (!(event?.target instanceof HTMLFormElement)) return;
    markSentWithScript();
    const data = new FormData(event.target);
    startTransition(() => formAction(data));
  });

  return (
    <form action={formAction} onSubmit={onSubmit} onFocus={() => void loadResolver()} className="relative space-y-5">
      <FormOutcome state={state} messages={signupMessages} visible={showInline} />
      <Field fieldId="signup-name" label={f.name.label} error={errors.name}>
        <input
          {...register("name")}
          {...describedByError("signup-name", errors.name)}
          type="text"
          autoComplete="name"
          autoFocus={firstError === "name"}
          maxLength={f.name.maxLength}
          placeholder={f.name.placeholder}
          defaultValue={values.name}
          className={controlClass}
        />
      </Field>
      <Field fieldId="signup-phone" label={f.phone.label} error={errors.phone}>
        <input
          {...register("phone")}
          {...describedByError("signup-phone", errors.phone)}
          type="tel"
          autoComplete="tel"
          autoFocus={firstError === "phone"}
          maxLength={f.phone.maxLength}
          placeholder={f.phone.placeholder}
          defaultValue={values.phone}
          className={controlClass}
        />
      </Field>
      <div>
        <div className="flex gap-3">
          <input
            {...register("consent")}
            {...describedByError("signup-consent", errors.consent)}
            type="checkbox"
            autoFocus={firstError === "consent"}
            defaultChecked={values.consent}
            className="mt-1 size-5 shrink-0 accent-brand-600"
          />
          <label htmlFor="signup-consent" className="text-sm text-stone-700">
            {f.consent.label}
          </label>
        </div>
        <FieldError fieldId="signup-consent" message={errors.consent} />
      </div>
      <HoneypotField idPrefix="signup" />
      <button type="submit" disabled={pending} className={`w-full ${buttonClass("primary")}`}>
        {pending ? signupMessages.busy : signupMessages.submit}
      </button>
    </form>
  );
}
