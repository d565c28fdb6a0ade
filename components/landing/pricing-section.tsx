import { Icon } from "@/components/ui/icon";
import { buttonClass } from "@/components/ui/button-styles";
import { Section } from "@/components/ui/section";
import { pricing } from "./landing-content";

export function PricingSection() {
  return (
    <Section copy={pricing} white>
      <ul className="mt-14 grid gap-6 lg:grid-cols-3">
        {pricing.plans.map((plan) => (
          <li
            key={plan.name}
            className={`relative flex flex-col rounded-3xl border bg-cream p-8 ${
              plan.popular ? "border-brand-600 shadow-xl ring-2 ring-brand-600" : "border-stone-200"
            }`}
          >
            {plan.popular ? (
              <p className="absolute -top-3.5 left-1/2 -translate-x-1/2 rounded-full bg-brand-600 px-4 py-1 text-sm font-semibold text-white">
                {pricing.popularLabel}
              </p>
            ) : null}
            <h3 className="text-lg font-semibold">{plan.name}</h3>
            <p className="mt-4 flex items-baseline gap-1">
              <span className="text-5xl font-extrabold tracking-tight">${plan.price}</span>
              <span className="text-stone-600">{pricing.period}</span>
            </p>
            <a href={pricing.planCta.href} className={`mt-8 ${buttonClass(plan.popular ? "primary" : "secondary")}`}>
              {pricing.planCta.label}
            </a>
          </li>
        ))}
      </ul>
      <div className="mt-12 grid gap-8 rounded-3xl border border-stone-200 bg-cream p-8 sm:p-10 lg:grid-cols-3">
        <div className="lg:col-span-2">
          <h3 className="text-xl font-semibold">{pricing.includesTitle}</h3>
          <ul className="mt-6 checklist grid gap-3 sm:grid-cols-2">
            {pricing.includes.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </div>
        <div className="flex flex-col justify-center gap-6 lg:border-l lg:border-stone-200 lg:pl-8">
          <div className="flex gap-4">
            <span className="icon-badge bg-brand-100 text-brand-700">
              <Icon name="percent" className="size-6" />
            </span>
            <div>
              <h3 className="font-semibold">{pricing.noFee.title}</h3>
              <p className="mt-1 text-stone-600">{pricing.noFee.body}</p>
            </div>
          </div>
          <p className="text-stone-600">
            {pricing.custom.text}{" "}
            <a href={pricing.custom.link.href} className="font-semibold text-brand-700 underline underline-offset-4">
              {pricing.custom.link.label}
            </a>
          </p>
        </div>
      </div>
    </Section>
  );
}
