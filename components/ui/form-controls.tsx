export const labelClass = "block text-sm font-semibold text-ink";

export const controlClass =
  "mt-2 block w-full rounded-xl border border-stone-300 bg-white px-4 py-3 text-base text-ink placeholder:text-stone-500 aria-invalid:border-red-700";

/** The id of a field's error text, for aria-describedby. */
export const errorId = (fieldId: string) => `${fieldId}-error`;

/** A field's error message, announced through the control's aria-describedby. */
export function FieldError({ fieldId, message }: { fieldId: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={errorId(fieldId)} className="mt-2 text-sm font-medium text-red-700">
      {message}
    </p>
  );
}
