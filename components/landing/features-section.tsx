import {
  BellRing,
  BookOpenText,
  HeartHandshake,
  LayoutDashboard,
  MessageSquareText,
  ReceiptText,
  ShieldAlert,
  type LucideIcon,
} from "lucide-react";
import { SectionHeading } from "@/components/ui/section-heading";
import { features, type FeatureIcon } from "./landing-content";

const icons: Record<FeatureIcon, LucideIcon> = {
  receipt: ReceiptText,
  shield: ShieldAlert,
  heart: HeartHandshake,
  book: BookOpenText,
  bell: BellRing,
  layout: LayoutDashboard,
};

export function FeaturesSection() {
  const { panel } = features;
  return (
    <section id={features.id} aria-labelledby={`${features.id}-title`} className="py-20 sm:py-28">
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        <SectionHeading id={features.id} eyebrow={features.eyebrow} title={features.title} lead={features.lead} />
        <ul className="mt-14 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {features.cards.map((card) => {
            const Icon = icons[card.icon];
            return (
              <li key={card.title} className="rounded-2xl border border-stone-200 bg-white p-6 shadow-sm">
                <span className="inline-flex size-11 items-center justify-center rounded-xl bg-brand-600 text-white">
                  <Icon aria-hidden="true" className="size-6" />
                </span>
                <h3 className="mt-5 text-lg font-semibold">{card.title}</h3>
                <p className="mt-2 text-stone-600">{card.body}</p>
              </li>
            );
          })}
        </ul>
        <div className="mt-12 grid gap-8 rounded-3xl bg-ink p-8 text-white sm:p-12 lg:grid-cols-2 lg:items-center">
          <div>
            <MessageSquareText aria-hidden="true" className="size-10 text-brand-200" />
            <h3 className="mt-4 text-2xl font-bold sm:text-3xl">{panel.title}</h3>
            <p className="mt-4 text-lg text-stone-300">{panel.body}</p>
          </div>
          <dl className="grid grid-cols-3 gap-4 text-center">
            {panel.stats.map((stat) => (
              <div key={stat.label} className="flex flex-col-reverse justify-end rounded-2xl bg-white/5 px-2 py-6">
                <dt className="mt-1 text-sm text-stone-300">{stat.label}</dt>
                <dd className="text-3xl font-extrabold text-brand-200 sm:text-4xl">{stat.value}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>
    </section>
  );
}
