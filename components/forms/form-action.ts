import "server-only";
import type { PostedValues } from "@/lib/forms/define";
import { sendForm } from "@/server/submission/send-form";
import type { FormAction } from "./use-server-form";

/**
 * A form's server action: the one action every form posts to, bound to this
 * form's name where the page renders it. Bound on the server, it stays a
 * server action a post made without JavaScript reaches (a binding made in the
 * browser's component would hang that post: vercel/next.js#98045).
 */
export function formAction<Values extends PostedValues>(definition: { name: string; emptyValues: Values }) {
  // A cast: the fixture's third form is registered at run time only, so the
  // action cannot take its type from lib/forms' registry (decision 0004).
  return sendForm.bind(null, definition.name) as unknown as FormAction<Values>;
}
