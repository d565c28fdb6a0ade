import { ImageResponse } from "next/og";
import { hero } from "@/components/landing/landing-content";
import { BrandMark } from "@/components/site/brand-mark";
import { brand, socialImage } from "@/components/site/site-content";

// Rendered once at build by next/og; a static PNG from then on.
export const alt = socialImage.alt;
export const size = { width: socialImage.width, height: socialImage.height };
export const contentType = "image/png";

export default function OpenGraphImage() {
  return new ImageResponse(
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: 72,
        background: "linear-gradient(135deg, #fbf8f3 0%, #ffe8d4 100%)",
        color: "#1c1917",
      }}
    >
      <div style={{ display: "flex", alignItems: "center", gap: 20, fontSize: 44, fontWeight: 700 }}>
        <BrandMark size={72} radius={18} />
        {brand.name}
      </div>
      <div style={{ display: "flex", fontSize: 72, fontWeight: 800, lineHeight: 1.1, maxWidth: 1000 }}>
        {hero.title}
      </div>
      <div style={{ display: "flex", fontSize: 32, color: "#57534e" }}>{brand.tagline} · Early access open</div>
    </div>,
    size,
  );
}
