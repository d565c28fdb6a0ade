import { buttonClass } from "@/components/ui/button-styles";
import { controlClass, labelClass } from "@/components/ui/form-controls";
import { clientCountOptions, contactFields as f, contactMessages } from "./contact-content";

export function ContactForm() {
  return (
    <form className="grid gap-5 sm:grid-cols-2">
      <div>
        <label htmlFor="contact-name" className={labelClass}>
          {f.name.label}
        </label>
        <input id="contact-name" name="name" type="text" required autoComplete="name" maxLength={f.name.maxLength} placeholder={f.name.placeholder} className={controlClass} />
      </div>
      <div>
        <label htmlFor="contact-email" className={labelClass}>
          {f.email.label}
        </label>
        <input id="contact-email" name="email" type="email" required autoComplete="email" maxLength={f.email.maxLength} placeholder={f.email.placeholder} className={controlClass} />
      </div>
      <div>
        <label htmlFor="contact-phone" className={labelClass}>
          {f.phone.label}
        </label>
        <input id="contact-phone" name="phone" type="tel" autoComplete="tel" maxLength={f.phone.maxLength} placeholder={f.phone.placeholder} className={controlClass} />
      </div>
      <div>
        <label htmlFor="contact-client-count" className={labelClass}>
          {f.clientCount.label}
        </label>
        <select id="contact-client-count" name="clientCount" required defaultValue="" className={controlClass}>
          <option value="" disabled>
            {f.clientCount.placeholder}
          </option>
          {clientCountOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div className="sm:col-span-2">
        <label htmlFor="contact-current-tools" className={labelClass}>
          {f.currentTools.label}
        </label>
        <input id="contact-current-tools" name="currentTools" type="text" maxLength={f.currentTools.maxLength} placeholder={f.currentTools.placeholder} className={controlClass} />
      </div>
      <div className="sm:col-span-2">
        <label htmlFor="contact-message" className={labelClass}>
          {f.message.label}
        </label>
        <textarea id="contact-message" name="message" rows={4} maxLength={f.message.maxLength} placeholder={f.message.placeholder} className={controlClass} />
      </div>
      <div className="sm:col-span-2">
        <button type="submit" className={`w-full ${buttonClass("primary")}`}>
          {contactMessages.submit}
        </button>
      </div>
    </form>
  );
}
