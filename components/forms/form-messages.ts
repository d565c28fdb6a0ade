import type { Message } from "@/lib/forms/define";
import type { FormState } from "@/lib/forms/form-state";

/** A form's words for its outcomes: the spec's success and failure texts. */
export type FormMessages = { success: Message; failure: Message };

function waitFor(seconds: number) {
  if (seconds <= 90) return "in a minute";
  if (seconds < 3600) return `in ${Math.ceil(seconds / 60)} minutes`;
  const hours = Math.ceil(seconds / 3600);
  return hours === 1 ? "in an hour" : `in ${hours} hours`;
}

/** What a visitor refused by a rate limit reads. */
export function rateLimitedMessage(retryAfterSeconds = 600): Message {
  return {
    title: "Too many attempts",
    text: `This form was sent several times in a short while. Please try again ${waitFor(retryAfterSeconds)}.`,
  };
}

/** What a visitor whose post failed the server's checks reads above the fields' own messages. */
export const invalidMessage: Message = {
  title: "Please check the form",
  text: "Correct the fields marked below, then send it again.",
};

/** The message for an answer, or null for none (idle). */
export function outcomeMessage(state: FormState<unknown>, messages: FormMessages): Message | null {
  switch (state.status) {
    case "idle":
      return null;
    case "success":
      return messages.success;
    case "invalid":
      return invalidMessage;
    case "rate_limited":
      return rateLimitedMessage(state.retryAfterSeconds);
    default:
      return messages.failure;
  }
}
