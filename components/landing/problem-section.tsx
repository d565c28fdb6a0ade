import { Clock, FileSpreadsheet, MessagesSquare, Wallet, type IconNode } from "lucide";
import { IconCard } from "@/components/ui/icon-card";
import { SectionHeading } from "@/components/ui/section-heading";
import { problem, type ProblemIcon } from "./landing-content";

const icons: Record<ProblemIcon, IconNode> = {
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
          {problem.cards.map((card) => (
            <IconCard key={card.title} icon={icons[card.icon]} title={card.title} body={card.body} tone="quiet" />
          ))}
        </ul>
        <p className="mx-auto mt-12 flex max-w-3xl flex-col items-center gap-2 rounded-2xl bg-ink px-6 py-8 text-center text-lg text-white sm:flex-row sm:gap-6 sm:text-left">
          <span className="text-4xl font-extrabold text-brand-200">{problem.promise.value}</span>
          <span>{problem.promise.text}</span>
        </p>
      </div>
    </section>
  );
}
