"use client";

import { useCallback } from "react";
import { useForm, type Resolver } from "react-hook-form";
import { consentFieldNames } from "@/lib/forms/consent";
import type { ServedForm } from "@/lib/forms/form-state";
import { waitlist, waitlistFields as f, waitlistMessages, type WaitlistValues } from "@/lib/forms/waitlist";
import type { WaitlistLead } from "@/lib/forms/waitlist/schema";
import { useHydrated } from "@/components/ui/use-hydrated";
import { CheckboxField, SubmitButton, TextField } from "./form-fields";
import { ConsentLinks } from "./consent-links";
import { FormOutcome } from "./form-outcome";
import { HoneypotField } from "./honeypot-field";
import { useServerForm } from "./use-server-form";

// The schema and its resolver load when the visitor first focuses the form (or submits it): the page's first load
// carries no zod.
const loadResolver = () => import("./form-resolver");

/**
 * The waitlist form, checked with the server's own schema on submit and on every change, the first bad field focused
 * (the spec). `consent` is the server's: the countries it accepts and the version of the consent text shown.
 */
export function WaitlistForm({ action, consent }: ServedForm<WaitlistValues>) {
  if (!consent) throw new Error("The waitlist asks consent to text: serveForm(waitlist) serves its consent fields");
  const { phonePolicy, disclosureVersion } = consent;
  const hydrated = useHydrated();
  const resolver = useCallback<Resolver<WaitlistValues, unknown, WaitlistLead>>(
    async (values, context, options) => {
      const resolve = await (await loadResolver()).formResolver(waitlist, phonePolicy);
      return resolve(values, context, options);
    },
    [phonePolicy],
  );
  const browserCheck = useForm<WaitlistValues, unknown, WaitlistLead>({
    resolver,
    defaultValues: waitlist.emptyValues,
    mode: "onSubmit",
    reValidateMode: "onChange",
    shouldFocusError: true,
  });
  const form = useServerForm({ definition: waitlist, action, browserCheck });

  return (
    <form {...form.formProps} onFocus={() => void loadResolver()} className="relative space-y-5">
      <FormOutcome {...form.outcome} />
      <TextField form={form} name="name" spec={f.name} type="text" autoComplete="name" />
      <TextField form={form} name="phone" spec={f.phone} type="tel" autoComplete="tel" />
      <CheckboxField form={form} name="consent" spec={f.consent}>
        <ConsentLinks />
      </CheckboxField>
      <input type="hidden" name={consentFieldNames.disclosure} value={disclosureVersion} />
      {/* "1" once React runs: the consent record says whether JavaScript sent the form. */}
      <input type="hidden" name={consentFieldNames.javascript} value={hydrated ? "1" : "0"} />
      <HoneypotField idPrefix="waitlist" />
      <SubmitButton pending={form.pending} words={waitlistMessages} />
    </form>
  );
}
