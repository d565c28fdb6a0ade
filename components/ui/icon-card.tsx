import { Icon } from "./icon";
import type { IconName } from "./icon-markup";

type IconCardProps = {
  icon: IconName;
  title: string;
  body: string;
  /** Card and icon colours: quiet on white sections, bold on cream ones. */
  tone: "quiet" | "bold";
};

const tones = {
  quiet: { card: "bg-cream", icon: "bg-brand-100 text-brand-700" },
  bold: { card: "bg-white shadow-sm", icon: "bg-brand-600 text-white" },
} as const;

/** An icon, a title and a sentence: the cards of the problem and feature grids. */
function IconCard({ icon, title, body, tone }: IconCardProps) {
  return (
    <li className={`card ${tones[tone].card}`}>
      <span className={`icon-badge ${tones[tone].icon}`}>
        <Icon name={icon} className="size-6" />
      </span>
      <h3 className="card-title">{title}</h3>
      <p className="card-text">{body}</p>
    </li>
  );
}

type IconCardGridProps<Key extends string> = {
  cards: readonly { icon: Key; title: string; body: string }[];
  icons: Record<Key, IconName>;
  tone: IconCardProps["tone"];
  /** The widest screen's column count, as a class Tailwind can find: "lg:grid-cols-3". */
  wide: "lg:grid-cols-3" | "lg:grid-cols-4";
};

/** A grid of icon cards, one column on a phone, two on a tablet, `wide` beyond. */
export function IconCardGrid<Key extends string>({ cards, icons, tone, wide }: IconCardGridProps<Key>) {
  return (
    <ul className={`mt-14 grid gap-6 sm:grid-cols-2 ${wide}`}>
      {cards.map((card) => (
        <IconCard key={card.title} icon={icons[card.icon]} title={card.title} body={card.body} tone={tone} />
      ))}
    </ul>
  );
}
