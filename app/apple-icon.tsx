import { ImageResponse } from "next/og";
import { ChefHat } from "lucide";

// The home-screen icon iOS asks for; drawn once at build, like the social card.
export const size = { width: 180, height: 180 };
export const contentType = "image/png";

export default function AppleIcon() {
  return new ImageResponse(
    (
      <div
        style={{
          width: "100%",
          height: "100%",
          display: "flex",
          alignItems: "center",
          justifyContent: "center",
          background: "#c2410c",
        }}
      >
        <svg width="112" height="112" viewBox="0 0 24 24" fill="none" stroke="#fff" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          {ChefHat.map(([tag, attributes], index) =>
            tag === "path" ? <path key={index} d={String(attributes.d)} /> : null,
          )}
        </svg>
      </div>
    ),
    size,
  );
}
