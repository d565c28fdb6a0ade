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
export function formAction<Values extends PostedValues>(form: { name: string; emptyValues: Values }) {
  return sendForm.bind(null, form.name) as unknown as FormAction<Values>;
}
