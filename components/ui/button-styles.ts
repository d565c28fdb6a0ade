// The layout every button shares: `btn` in app/globals.css.
const base = "btn";

const variants = {
  primary: "bg-brand-600 text-white hover:bg-brand-700",
  secondary: "border border-stone-300 bg-white text-ink hover:border-stone-400 hover:bg-stone-50",
  inverted: "bg-white text-ink hover:bg-brand-50",
  ghostOnDark: "border border-white/40 text-white hover:bg-white/10",
} as const;

const sizes = {
  sm: "px-4 py-2 text-sm",
  md: "px-6 py-3 text-base",
} as const;

export function buttonClass(variant: keyof typeof variants = "primary", size: keyof typeof sizes = "md") {
  return `${base} ${variants[variant]} ${sizes[size]}`;
}
