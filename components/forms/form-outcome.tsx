import { CircleAlert, CircleCheck } from "lucide-react";
import type { FormStatus } from "./form-state";
import type { FormMessages } from "./use-form-feedback";

type FormOutcomeProps = {
  status: FormStatus;
  messages: FormMessages;
  /** Show the message; otherwise only the empty live region renders. */
  visible: boolean;
  className?: string;
};

/**
 * The answer to a post made without JavaScript, in the toast's words. It sits
 * at the top of its form, and takes focus (autofocus needs no script) so the
 * browser brings it into view; when the address has a #fragment the browser
 * scrolls there instead, to the top of the form's section.
 */
export function FormOutcome({ status, messages, visible, className = "" }: FormOutcomeProps) {
  const message = status === "success" ? messages.success : messages.failure;
  const show = visible && status !== "idle";
  const invalid = status === "invalid";
  return (
    <div role="status" aria-live="polite" className={`empty:hidden ${className}`}>
      {show ? (
        <p
          tabIndex={-1}
          // An invalid post focuses its first bad field instead.
          autoFocus={!invalid}
          className={`flex gap-3 rounded-xl border p-4 text-sm ${
            status === "success" ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-red-300 bg-red-50 text-red-900"
          }`}
        >
          {status === "success" ? (
            <CircleCheck aria-hidden="true" className="size-5 shrink-0" />
          ) : (
            <CircleAlert aria-hidden="true" className="size-5 shrink-0" />
          )}
          <span>
            <strong className="font-semibold">{message.title}</strong> {message.text}
          </span>
        </p>
      ) : null}
    </div>
  );
}
