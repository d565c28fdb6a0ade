"use client";

import { track } from "@vercel/analytics";
import { startTransition, useActionState, useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import type { FieldValues, Path, UseFormReturn } from "react-hook-form";
import { describedByError } from "@/components/ui/form-controls";
import { idleState, isKept, scriptPostField, type FormAction } from "@/lib/forms/form-state";
import { outcomeMessage, type FormMessages } from "./form-messages";
import { showToast } from "./toasts";

type Options<Values extends FieldValues, Checked> = {
  /**
   * The form's definition: its name (the prefix of its field ids, and what its action is bound to), its words, its
   * analytics event, and its permalink, the page and anchor a post made without JavaScript comes back to (also the
   * form's action attribute, which must not be empty in valid HTML).
   */
  definition: { name: string; emptyValues: Values; messages: FormMessages; event: string; permalink: string };
  action: FormAction<Values>;
  /** react-hook-form, for a form whose fields the browser checks with its schema. */
  browserCheck?: UseFormReturn<Values, unknown, Checked>;
};

/**
 * With JavaScript the post goes without a page load or React's form reset, so a failure keeps every value; the answer
 * becomes a toast, or shows inline when the server rendered it for a post made without JavaScript.
 */
export function useServerForm<Values extends FieldValues, Checked = Values>(options: Options<Values, Checked>) {
  const { definition, action, browserCheck: check } = options;
  const { name, emptyValues, messages, event, permalink } = definition;
  const [state, formAction, pending] = useActionState(action, idleState(emptyValues), permalink);
  const formRef = useRef<HTMLFormElement>(null);
  const [sentWithScript, setSentWithScript] = useState(false);
  const toasted = useRef("");

  const clear = useCallback(() => (check ? check.reset(emptyValues) : formRef.current?.reset()), [check, emptyValues]);

  useEffect(() => {
    const message = outcomeMessage(state, messages);
    if (!sentWithScript || !message || toasted.current === state.id) return;
    toasted.current = state.id;
    if (isKept(state.status)) clear();
    if (state.status === "success") track(event);
    void showToast(state.status === "success" ? "success" : "error", message.title, message.text);
  }, [state, sentWithScript, messages, event, clear]);

  function send(form: HTMLFormElement) {
    setSentWithScript(true);
    const data = new FormData(form);
    // The answer comes back to this page: no redirect to a result page (that is for a post without JavaScript).
    data.set(scriptPostField, "1");
    startTransition(() => formAction(data));
  }

  // Dispatching ourselves keeps React from resetting the form. With a browser check, the submit event's target is the
  // form (currentTarget is gone once validation has awaited).
  const onSubmit = check
    ? check.handleSubmit((_valid, submitEvent) => {
        if (submitEvent?.target instanceof HTMLFormElement) send(submitEvent.target);
      })
    : (submitEvent: FormEvent<HTMLFormElement>) => {
        submitEvent.preventDefault();
        send(submitEvent.currentTarget);
      };

  const serverErrors: Record<string, string | undefined> = state.errors;
  const errorOf = (field: Path<Values>): string | undefined => {
    // Passing formState subscribes this render to the browser check's errors.
    const browserError = check?.getFieldState(field, check.formState).error?.message;
    return browserError ?? serverErrors[field];
  };
  // A post answered without JavaScript focuses its first bad field.
  const firstError = Object.keys(emptyValues).find((field) => serverErrors[field]);

  return {
    values: state.values,
    pending,
    errorOf,
    formProps: { ref: formRef, action: formAction, onSubmit },
    outcome: { state, messages, visible: !sentWithScript },
    /** The attributes every control of the form carries. */
    control(field: Path<Values>) {
      return {
        ...(check ? check.register(field) : { name: field }),
        ...describedByError(`${name}-${field}`, errorOf(field)),
        autoFocus: firstError === field,
      };
    },
  };
}

export type ServerForm<Values extends FieldValues> = ReturnType<typeof useServerForm<Values>>;
