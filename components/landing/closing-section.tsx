import { CtaPair } from "./cta-pair";
import { closing } from "./landing-content";

export function ClosingSection() {
  return (
    <section aria-labelledby="closing-title" className="px-4 pb-20 sm:px-6 sm:pb-28">
      <div className="mx-auto max-w-6xl rounded-3xl bg-brand-700 px-6 py-16 text-center text-white sm:px-12">
        <h2 id="closing-title" className="text-3xl font-extrabold tracking-tight sm:text-5xl">
          {closing.title}
        </h2>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-brand-50">{closing.lead}</p>
        <CtaPair primary={closing.primaryCta} secondary={closing.secondaryCta} variants={["inverted", "ghostOnDark"]} />
      </div>
    </section>
  );
}
