/** Builds the FormData a browser would post for the given fields. */
export function formData(fields: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  // What React adds to a progressively enhanced form; the actions must ignore it.
  data.append("$ACTION_ID_0123456789abcdef", "");
  return data;
}
