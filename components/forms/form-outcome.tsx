import { Icon } from "@/components/ui/icon";
import { outcomeMessage, type FormMessages } from "./form-messages";
import type { FormState } from "@/lib/forms/form-state";

type FormOutcomeProps = {
  state: FormState<unknown>;
  messages: FormMessages;
  /** Show the message; otherwise only the empty live region renders. */
  visible: boolean;
  className?: string;
};

/**
 * The answer to a post made without JavaScript, in the toast's words. It sits at the top of its form, and takes focus
 * (autofocus needs no script) so the browser brings it into view; when the address has a #fragment the browser scrolls
 * there instead, to the top of the form's section.
 */
export function FormOutcome({ state, messages, visible, className = "" }: FormOutcomeProps) {
  const message = visible ? outcomeMessage(state, messages) : null;
  const success = state.status === "success";
  return (
    <div role="status" aria-live="polite" className={`empty:hidden ${className}`}>
      {message ? (
        <p
          tabIndex={-1}
          // An invalid post focuses its first bad field instead.
          autoFocus={state.status !== "invalid"}
          className={`flex gap-3 rounded-xl border p-4 text-sm ${
            success ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-red-300 bg-red-50 text-red-900"
          }`}
        >
          {success ? (
            <Icon name="circleCheck" className="size-5 shrink-0" />
          ) : (
            <Icon name="circleAlert" className="size-5 shrink-0" />
          )}
          <span>
            <strong className="font-semibold">{message.title}</strong> {message.text}
          </span>
        </p>
      ) : null}
    </div>
  );
}
