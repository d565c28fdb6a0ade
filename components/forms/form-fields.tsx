import type { InputHTMLAttributes, ReactNode } from "react";
import type { FieldValues, Path } from "react-hook-form";
import { buttonClass } from "@/components/ui/button-styles";
import { controlClass, Field, FieldError } from "@/components/ui/form-controls";
import type { FieldWords } from "@/lib/forms/define";
import type { ServerForm } from "./use-server-form";

type TextFieldProps<Values extends FieldValues> = {
  form: ServerForm<Values>;
  name: Path<Values>;
  spec: FieldWords;
  className?: string;
} & Pick<InputHTMLAttributes<HTMLInputElement>, "type" | "required" | "autoComplete">;

/** A labelled one-line field whose label, length cap and placeholder come from the form's contract. */
export function TextField<Values extends FieldValues>({
  form,
  name,
  spec,
  className,
  ...input
}: TextFieldProps<Values>) {
  const control = form.control(name);
  return (
    <Field fieldId={control.id} label={spec.label} error={form.errorOf(name)} className={className}>
      <input
        {...control}
        {...input}
        maxLength={spec.maxLength}
        placeholder={spec.placeholder}
        defaultValue={String(form.values[name] ?? "")}
        className={controlClass}
      />
    </Field>
  );
}

/** A checkbox with its label beside it, what `children` adds beneath the label, and its error below. */
export function CheckboxField<Values extends FieldValues>({
  form,
  name,
  spec,
  children,
}: Omit<TextFieldProps<Values>, "type"> & { children?: ReactNode }) {
  const control = form.control(name);
  return (
    <div>
      <div className="flex gap-3">
        <input
          {...control}
          type="checkbox"
          defaultChecked={form.values[name] === true}
          className="mt-1 size-5 shrink-0 accent-brand-600"
        />
        <div>
          <label htmlFor={control.id} className="text-sm text-stone-700">
            {spec.label}
          </label>
          {children}
        </div>
      </div>
      <FieldError fieldId={control.id} message={form.errorOf(name)} />
    </div>
  );
}

/** The form's submit button, relabelled and disabled while its post is in flight. */
export function SubmitButton({ pending, words }: { pending: boolean; words: { submit: string; busy: string } }) {
  return (
    <button type="submit" disabled={pending} className={`w-full ${buttonClass("primary")}`}>
      {pending ? words.busy : words.submit}
    </button>
  );
}
