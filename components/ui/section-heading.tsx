type SectionHeadingProps = {
  id: string;
  eyebrow: string;
  title: string;
  lead?: string;
};

/** The eyebrow, heading and lead every landing section opens with. */
export function SectionHeading({ id, eyebrow, title, lead }: SectionHeadingProps) {
  return (
    <div className="section-head">
      <p className="eyebrow">{eyebrow}</p>
      <h2 id={`${id}-title`} className="section-title">
        {title}
      </h2>
      {lead ? <p className="mt-4 text-lg text-stone-600">{lead}</p> : null}
    </div>
  );
}
