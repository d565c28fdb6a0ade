import "server-only";
import type { FormName, FormValues } from "@/lib/forms";
import { sendForm } from "@/server/actions/send-form";
import type { FormAction } from "./use-server-form";

/**
 * A form's server action: the one action every form posts to, bound to this
 * form's name where the page renders it. Bound on the server, it stays a
 * server action a post made without JavaScript reaches (a binding made in the
 * browser's component would hang that post: vercel/next.js#98045).
 */
export function formAction<Name extends FormName>(form: { name: Name }) {
  return sendForm.bind(null, form.name) as unknown as FormAction<FormValues<Name>>;
}
