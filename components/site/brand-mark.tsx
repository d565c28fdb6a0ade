import { ChefHat } from "lucide";

/**
 * The chef's hat on the brand colour, for images drawn by next/og (the social
 * card and the home-screen icon). Inline styles: next/og has no stylesheet.
 */
export function BrandMark({ size, radius }: { size: number; radius: number }) {
  return (
    <div
      style={{
        width: size,
        height: size,
        borderRadius: radius,
        background: "#c2410c",
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
      }}
    >
      <svg
        width={size * 0.62}
        height={size * 0.62}
        viewBox="0 0 24 24"
        fill="none"
        stroke="#fff"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {ChefHat.map(([, attributes], index) => (
          <path key={index} d={String(attributes.d)} />
        ))}
      </svg>
    </div>
  );
}
