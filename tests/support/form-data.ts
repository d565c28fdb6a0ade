import { scriptPostField } from "@/lib/forms/form-state";

/**
 * Builds the FormData a browser would post for the given fields: as the
 * page's script sends it (the answer comes back as a result), or with
 * `script: false` as the browser alone posts it (a kept sign-up then ends in
 * a redirect to its result page).
 */
export function formData(fields: Record<string, string>, { script = true }: { script?: boolean } = {}) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (script) data.append(scriptPostField, "1");
  // What React adds to a progressively enhanced form; the actions must ignore it.
  data.append("$ACTION_ID_0123456789abcdef", "");
  return data;
}
