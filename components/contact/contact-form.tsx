"use client";

import { startTransition, useActionState, useCallback, useRef, type FormEvent } from "react";
import { FormOutcome } from "@/components/forms/form-outcome";
import { HoneypotField } from "@/components/forms/honeypot-field";
import { idleState } from "@/components/forms/form-state";
import { useFormFeedback } from "@/components/forms/use-form-feedback";
import { buttonClass } from "@/components/ui/button-styles";
import { controlClass, describedByError, Field } from "@/components/ui/form-controls";
import { submitContact } from "@/server/actions/submit-contact";
import { clientCountOptions, contactFields as f, contactMessages, emptyContactValues } from "./contact-content";

const fieldOrder = ["name", "email", "phone", "clientCount", "currentTools", "message"] as const;

/**
 * The contact form. The browser checks it natively (required, type="email");
 * the server action checks it again and forwards it. Without JavaScript it
 * posts to the same action and the page comes back with the outcome.
 */
export function ContactForm() {
  const [state, formAction, pending] = useActionState(submitContact, idleState(emptyContactValues));
  const formRef = useRef<HTMLFormElement>(null);
  const clear = useCallback(() => formRef.current?.reset(), []);
  const { markSentWithScript, showInline } = useFormFeedback(state, {
    messages: contactMessages,
    event: "Contact Request",
    onSuccess: clear,
  });
  const { values, errors } = state;
  const firstError = fieldOrder.find((name) => errors[name]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    // Dispatching ourselves keeps React from resetting the form: a failed
    // request leaves every value where the visitor put it.
    event.preventDefault();
    markSentWithScript();
    const data = new FormData(event.currentTarget);
    startTransition(() => formAction(data));
  }

  const control = (name: (typeof fieldOrder)[number]) => ({
    ...describedByError(`contact-${name}`, errors[name]),
    name,
    autoFocus: firstError === name,
    className: controlClass,
  });

  return (
    <form ref={formRef} action={formAction} onSubmit={onSubmit} className="grid gap-5 sm:grid-cols-2">
      <FormOutcome state={state} messages={contactMessages} visible={showInline} className="sm:col-span-2" />
      <Field fieldId="contact-name" label={f.name.label} error={errors.name}>
        <input {...control("name")} type="text" required autoComplete="name" maxLength={f.name.maxLength} placeholder={f.name.placeholder} defaultValue={values.name} />
      </Field>
      <Field fieldId="contact-email" label={f.email.label} error={errors.email}>
        <input {...control("email")} type="email" required autoComplete="email" maxLength={f.email.maxLength} placeholder={f.email.placeholder} defaultValue={values.email} />
      </Field>
      <Field fieldId="contact-phone" label={f.phone.label} error={errors.phone}>
        <input {...control("phone")} type="tel" autoComplete="tel" maxLength={f.phone.maxLength} placeholder={f.phone.placeholder} defaultValue={values.phone} />
      </Field>
      <Field fieldId="contact-clientCount" label={f.clientCount.label} error={errors.clientCount}>
        {/* React applies a select's defaultValue only when it mounts: the key remounts it with each answer's value. */}
        <select {...control("clientCount")} key={values.clientCount} required defaultValue={values.clientCount}>
          <option value="" disabled>
            {f.clientCount.placeholder}
          </option>
          {clientCountOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </Field>
      <Field fieldId="contact-currentTools" label={f.currentTools.label} error={errors.currentTools} className="sm:col-span-2">
        <input {...control("currentTools")} type="text" maxLength={f.currentTools.maxLength} placeholder={f.currentTools.placeholder} defaultValue={values.currentTools} />
      </Field>
      <Field fieldId="contact-message" label={f.message.label} error={errors.message} className="sm:col-span-2">
        <textarea {...control("message")} rows={4} maxLength={f.message.maxLength} placeholder={f.message.placeholder} defaultValue={values.message} />
      </Field>
      <div className="relative sm:col-span-2">
        <HoneypotField idPrefix="contact" />
        <button type="submit" disabled={pending} className={`w-full ${buttonClass("primary")}`}>
          {pending ? contactMessages.busy : contactMessages.submit}
        </button>
      </div>
    </form>
  );
}
