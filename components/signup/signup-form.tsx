import { buttonClass } from "@/components/ui/button-styles";
import { controlClass, labelClass } from "@/components/ui/form-controls";
import { signupFields as f, signupMessages } from "./signup-content";

export function SignupForm() {
  return (
    <form className="space-y-5">
      <div>
        <label htmlFor="signup-name" className={labelClass}>
          {f.name.label}
        </label>
        <input id="signup-name" name="name" type="text" autoComplete="name" maxLength={f.name.maxLength} placeholder={f.name.placeholder} className={controlClass} />
      </div>
      <div>
        <label htmlFor="signup-phone" className={labelClass}>
          {f.phone.label}
        </label>
        <input id="signup-phone" name="phone" type="tel" autoComplete="tel" maxLength={f.phone.maxLength} placeholder={f.phone.placeholder} className={controlClass} />
      </div>
      <div className="flex gap-3">
        <input id="signup-consent" name="consent" type="checkbox" className="mt-1 size-5 shrink-0 accent-brand-600" />
        <label htmlFor="signup-consent" className="text-sm text-stone-700">
          {f.consent.label}
        </label>
      </div>
      <button type="submit" className={`w-full ${buttonClass("primary")}`}>
        {signupMessages.submit}
      </button>
    </form>
  );
}
