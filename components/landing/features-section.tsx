import { Icon } from "@/components/ui/icon";
import type { IconName } from "@/components/ui/icon-markup";
import { IconCardGrid } from "@/components/ui/icon-card";
import { Section } from "@/components/ui/section";
import { StatList } from "@/components/ui/stat-list";
import { features, type FeatureIcon } from "./landing-content";

const icons: Record<FeatureIcon, IconName> = {
  receipt: "receiptText",
  shield: "shieldAlert",
  heart: "heartHandshake",
  book: "bookOpenText",
  bell: "bellRing",
  layout: "layoutDashboard",
};

export function FeaturesSection() {
  const { panel } = features;
  return (
    <Section copy={features}>
      <IconCardGrid cards={features.cards} icons={icons} tone="bold" wide="lg:grid-cols-3" />
      <div className="mt-12 grid gap-8 rounded-3xl bg-ink p-8 text-white sm:p-12 lg:grid-cols-2 lg:items-center">
        <div>
          <Icon name="messageSquareText" className="size-10 text-brand-200" />
          <h3 className="mt-4 text-2xl font-bold sm:text-3xl">{panel.title}</h3>
          <p className="mt-4 text-lg text-stone-300">{panel.body}</p>
        </div>
        <StatList
          stats={panel.stats}
          className="grid grid-cols-3 gap-4 text-center"
          itemClassName="rounded-2xl bg-white/5 px-2 py-6"
          valueClassName="text-3xl font-extrabold text-brand-200 sm:text-4xl"
          labelClassName="mt-1 text-sm text-stone-300"
        />
      </div>
    </Section>
  );
}
