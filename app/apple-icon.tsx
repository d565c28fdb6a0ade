import { ImageResponse } from "next/og";
import { BrandMark } from "@/components/site/brand-mark";

// The home-screen icon iOS asks for; drawn once at build, like the social card.
export const size = { width: 180, height: 180 };
export const contentType = "image/png";

export default function AppleIcon() {
  return new ImageResponse(<BrandMark size={180} radius={0} />, size);
}
