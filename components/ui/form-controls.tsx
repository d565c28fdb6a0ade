import type { ReactNode } from "react";

export const labelClass = "field-label";

export const controlClass = "field-input";

const errorId = (fieldId: string) => `${fieldId}-error`;

/** The attributes that tie a control to its error message. */
export function describedByError(fieldId: string, error: string | undefined) {
  return {
    id: fieldId,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? errorId(fieldId) : undefined,
  } as const;
}

/** A field's error message, announced through the control's aria-describedby. */
export function FieldError({ fieldId, message }: { fieldId: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={errorId(fieldId)} className="mt-2 text-sm font-medium text-red-700">
      {message}
    </p>
  );
}

type FieldProps = {
  fieldId: string;
  label: string;
  error?: string;
  className?: string;
  children: ReactNode;
};

/** Label above, control, error below. */
export function Field({ fieldId, label, error, className, children }: FieldProps) {
  return (
    <div className={className}>
      <label htmlFor={fieldId} className={labelClass}>
        {label}
      </label>
      {children}
      <FieldError fieldId={fieldId} message={error} />
    </div>
  );
}
