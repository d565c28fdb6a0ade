import { Icon } from "@/components/ui/icon";
import type { IconName } from "@/components/ui/icon-markup";
import { ContactForm } from "@/components/forms/contact-form";
import { FormMount } from "@/components/forms/form-mount";
import type { ContactValues } from "@/lib/forms/contact";
import type { ServedForm } from "@/lib/forms/form-state";
import { Section } from "@/components/ui/section";
import { contact } from "./landing-content";

const stepIcons: IconName[] = ["messageCircleReply", "calendarCheck", "rocket"];

/** The contact section; `served` is the contact form as the page serves it (serveForm). */
export function ContactSection({ served }: { served: ServedForm<ContactValues> }) {
  return (
    <Section copy={contact}>
      <div className="mt-14 grid gap-8 lg:grid-cols-5">
        <div className="rounded-3xl border border-stone-200 bg-white p-6 shadow-sm sm:p-8 lg:col-span-3">
          <h3 className="text-xl font-semibold">{contact.cardTitle}</h3>
          <p className="card-text">{contact.cardText}</p>
          <div className="mt-8">
            <FormMount form={ContactForm} served={served} />
          </div>
        </div>
        <aside aria-labelledby="next-steps-title" className="rounded-3xl bg-ink p-6 text-white sm:p-8 lg:col-span-2">
          <h3 id="next-steps-title" className="text-xl font-semibold">
            {contact.nextTitle}
          </h3>
          <ol className="mt-8 space-y-8">
            {contact.nextSteps.map((step, index) => {
              return (
                <li key={step.title} className="flex gap-4">
                  <span className="icon-badge bg-brand-600">
                    <Icon name={stepIcons[index] ?? "rocket"} className="size-6" />
                  </span>
                  <div>
                    <h4 className="font-semibold">{step.title}</h4>
                    <p className="mt-1 text-stone-300">{step.body}</p>
                  </div>
                </li>
              );
            })}
          </ol>
        </aside>
      </div>
    </Section>
  );
}
