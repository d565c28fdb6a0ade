import "server-only";
import type { ValuesByForm } from "@/lib/forms";
import { sendForm } from "@/server/submission/send-form";

/**
 * A form's server action: the one action every form posts to, bound to this
 * form's name where the page renders it. Bound on the server, it stays a
 * server action a post made without JavaScript reaches (a binding made in the
 * browser's component would hang that post: vercel/next.js#98045).
 */
export function formAction<Name extends keyof ValuesByForm & string>(definition: { name: Name }) {
  // Instantiated for this form first: bind() would type the action for any name.
  const send = sendForm<Name>;
  return send.bind(null, definition.name);
}
