import type { IconName } from "@/components/ui/icon-markup";
import { IconCardGrid } from "@/components/ui/icon-card";
import { Section } from "@/components/ui/section";
import { problem, type ProblemIcon } from "./landing-content";

const icons: Record<ProblemIcon, IconName> = {
  clock: "clock",
  sheet: "fileSpreadsheet",
  messages: "messagesSquare",
  wallet: "wallet",
};

export function ProblemSection() {
  return (
    <Section copy={problem} white>
      <IconCardGrid cards={problem.cards} icons={icons} tone="quiet" wide="lg:grid-cols-4" />
      <p className="mx-auto mt-12 flex max-w-3xl flex-col items-center gap-2 rounded-2xl bg-ink px-6 py-8 text-center text-lg text-white sm:flex-row sm:gap-6 sm:text-left">
        <span className="text-4xl font-extrabold text-brand-200">{problem.promise.value}</span>
        <span>{problem.promise.text}</span>
      </p>
    </Section>
  );
}
