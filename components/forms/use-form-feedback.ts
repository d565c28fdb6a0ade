"use client";

import { track } from "@vercel/analytics";
import { useEffect, useRef, useState } from "react";
import { outcomeMessage, type FormMessages } from "./form-messages";
import type { FormState } from "./form-state";
import { showToast } from "./toasts";

/**
 * Turns a form's answers into feedback. An answer to a post made with
 * JavaScript becomes a toast (once per answer id, StrictMode or not); an answer
 * rendered by the server for a post made without JavaScript shows inline.
 * A success is also counted in Web Analytics under `event`, without any of the
 * visitor's data (a no-op where analytics is off).
 */
export function useFormFeedback<Values>(
  state: FormState<Values>,
  { messages, event, onSuccess }: { messages: FormMessages; event: string; onSuccess: () => void },
) {
  const [sentWithScript, setSentWithScript] = useState(false);
  const toasted = useRef("");

  useEffect(() => {
    const message = outcomeMessage(state, messages);
    if (!sentWithScript || !message || toasted.current === state.id) return;
    toasted.current = state.id;
    if (state.status === "success") {
      onSuccess();
      track(event);
    }
    void showToast(state.status === "success" ? "success" : "error", message.title, message.text);
  }, [state, sentWithScript, messages, event, onSuccess]);

  return {
    /** Call when the form is submitted through script. */
    markSentWithScript: () => setSentWithScript(true),
    /** Whether the answer belongs inline: it was rendered for a post made without script. */
    showInline: !sentWithScript,
  };
}
