"use client";

import { controlClass, Field } from "@/components/ui/form-controls";
import {
  clientCountOptions,
  contact,
  contactFields as f,
  contactMessages,
  type ContactValues,
} from "@/lib/forms/contact";
import { SubmitButton, TextField } from "./form-fields";
import { FormOutcome } from "./form-outcome";
import { HoneypotField } from "./honeypot-field";
import type { ServedForm } from "@/lib/forms/form-state";
import { useServerForm } from "./use-server-form";

/**
 * The contact form. The browser checks it natively (required, type="email"),
 * as the spec asks; the server action checks it again and forwards it.
 */
export function ContactForm({ action }: ServedForm<ContactValues>) {
  const form = useServerForm({ definition: contact, action });
  const { values } = form;
  const clientCount = form.control("clientCount");
  const message = form.control("message");

  return (
    <form {...form.formProps} className="grid gap-5 sm:grid-cols-2">
      <FormOutcome {...form.outcome} className="sm:col-span-2" />
      <TextField form={form} name="name" spec={f.name} type="text" required autoComplete="name" />
      <TextField form={form} name="email" spec={f.email} type="email" required autoComplete="email" />
      <TextField form={form} name="phone" spec={f.phone} type="tel" autoComplete="tel" />
      <Field fieldId={clientCount.id} label={f.clientCount.label} error={form.errorOf("clientCount")}>
        {/* React applies a select's defaultValue only when it mounts: the key remounts it with each answer's value. */}
        <select
          {...clientCount}
          key={values.clientCount}
          required
          defaultValue={values.clientCount}
          className={controlClass}
        >
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
      <TextField form={form} name="currentTools" spec={f.currentTools} type="text" className="sm:col-span-2" />
      <Field fieldId={message.id} label={f.message.label} error={form.errorOf("message")} className="sm:col-span-2">
        <textarea
          {...message}
          rows={4}
          maxLength={f.message.maxLength}
          placeholder={f.message.placeholder}
          defaultValue={values.message}
          className={controlClass}
        />
      </Field>
      <div className="relative sm:col-span-2">
        <HoneypotField idPrefix="contact" />
        <SubmitButton pending={form.pending} words={contactMessages} />
      </div>
    </form>
  );
}
