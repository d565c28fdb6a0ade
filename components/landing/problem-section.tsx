import { Clock, FileSpreadsheet, MessagesSquare, Wallet, type LucideIcon } from "lucide-react";
import { SectionHeading } from "@/components/ui/section-heading";
import { problem, type ProblemIcon } from "./landing-content";

const icons: Record<ProblemIcon, LucideIcon> = {
  clock: Clock,
  sheet: FileSpreadsheet,
  messages: MessagesSquare,
  wallet: Wallet,
};

export function ProblemSection() {
  return (
    <section id={problem.id} aria-labelledby={`${problem.id}-title`} className="bg-white py-20 sm:py-28">
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        <SectionHeading id={problem.id} eyebrow={problem.eyebrow} title={problem.title} lead={problem.lead} />
        <ul className="mt-14 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {problem.cards.map((card) => {
            const Icon = icons[card.icon];
            return (
              <li key={card.title} className="rounded-2xl border border-stone-200 bg-cream p-6">
                <span className="inline-flex size-11 items-center justify-center rounded-xl bg-brand-100 text-brand-700">
                  <Icon aria-hidden="true" className="size-6" />
                </span>
                <h3 className="mt-5 text-lg font-semibold">{card.title}</h3>
                <p className="mt-2 text-stone-600">{card.body}</p>
              </li>
            );
          })}
        </ul>
        <p className="mx-auto mt-12 flex max-w-3xl flex-col items-center gap-2 rounded-2xl bg-ink px-6 py-8 text-center text-lg text-white sm:flex-row sm:gap-6 sm:text-left">
          <span className="text-4xl font-extrabold text-brand-200">{problem.promise.value}</span>
          <span>{problem.promise.text}</span>
        </p>
      </div>
    </section>
  );
}
