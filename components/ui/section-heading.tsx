type SectionHeadingProps = {
  id: string;
  eyebrow: string;
  title: string;
  lead?: string;
};

/** The eyebrow, heading and lead every landing section opens with. */
export function SectionHeading({ id, eyebrow, title, lead }: SectionHeadingProps) {
  return (
    <div className="mx-auto max-w-2xl text-center">
      <p className="text-sm font-semibold tracking-wide text-brand-700 uppercase">{eyebrow}</p>
      <h2 id={`${id}-title`} className="mt-3 text-3xl font-bold tracking-tight text-balance sm:text-4xl">
        {title}
      </h2>
      {lead ? <p className="mt-4 text-lg text-stone-600">{lead}</p> : null}
    </div>
  );
}
