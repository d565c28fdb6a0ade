import { Icon } from "@/components/ui/icon";
import { StatList } from "@/components/ui/stat-list";
import { CtaPair } from "./cta-pair";
import { hero } from "./landing-content";

export function HeroSection() {
  return (
    <section aria-labelledby="hero-title" className="relative overflow-hidden pt-32 pb-20 sm:pt-40 sm:pb-28">
      <div
        aria-hidden="true"
        className="absolute inset-x-0 top-0 -z-10 h-[36rem] bg-[radial-gradient(ellipse_at_top,var(--color-brand-100),transparent_65%)]"
      />
      <div className="mx-auto max-w-4xl px-4 text-center sm:px-6">
        <p className="inline-flex items-center gap-2 rounded-full border border-brand-200 bg-white px-4 py-1.5 text-sm font-medium text-brand-800">
          <Icon name="sparkles" className="size-4" />
          {hero.eyebrow}
        </p>
        <h1 id="hero-title" className="mt-6 text-4xl font-extrabold tracking-tight text-balance sm:text-6xl">
          {hero.title}
        </h1>
        <p className="mx-auto mt-6 max-w-2xl text-lg text-stone-600 sm:text-xl">{hero.lead}</p>
        <CtaPair
          primary={hero.primaryCta}
          secondary={hero.secondaryCta}
          variants={["primary", "secondary"]}
          arrow="arrowRight"
        />
        <StatList
          stats={hero.stats}
          className="mx-auto mt-14 grid max-w-xl grid-cols-3 gap-4"
          valueClassName="text-3xl font-bold text-ink sm:text-4xl"
          labelClassName="text-sm text-stone-600"
        />
      </div>
    </section>
  );
}
