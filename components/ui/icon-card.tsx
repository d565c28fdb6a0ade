import type { IconNode } from "lucide";
import { Icon } from "./icon";

type IconCardProps = {
  icon: IconNode;
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
export function IconCard({ icon, title, body, tone }: IconCardProps) {
  return (
    <li className={`rounded-2xl border border-stone-200 p-6 ${tones[tone].card}`}>
      <span className={`inline-flex size-11 items-center justify-center rounded-xl ${tones[tone].icon}`}>
        <Icon icon={icon} className="size-6" />
      </span>
      <h3 className="mt-5 text-lg font-semibold">{title}</h3>
      <p className="mt-2 text-stone-600">{body}</p>
    </li>
  );
}
