import { Analytics } from "@vercel/analytics/next";
import type { Metadata, Viewport } from "next";
import localFont from "next/font/local";
import type { ReactNode } from "react";
import { brand } from "@/components/site/site-content";
import { analyticsEnabled, siteUrl } from "@/server/env";
import "./globals.css";

// Self-hosted from npm: the build never reaches a font CDN. One Latin subset,
// never swapped in and not preloaded. With "optional" the text uses Inter only
// if it is there when the text is first painted, so the text never shifts; a
// first visit mostly paints in the device's own UI font (San Francisco, Segoe UI,
// Roboto: the stack in globals.css), caches Inter, and every later page uses it.
// A preload would hold the first paint for the font (Chrome blocks rendering on
// a font preload for a while after <body>), which on a phone's 4G link cannot
// arrive in that time anyway (docs/performance.md, "The font's preload").
// No metric-matched fallback either: it only matters when a font swaps in.
const inter = localFont({
  src: "../node_modules/@fontsource-variable/inter/files/inter-latin-wght-normal.woff2",
  variable: "--font-inter",
  weight: "100 900",
  display: "optional",
  preload: false,
  adjustFontFallback: false,
});

export function generateMetadata(): Metadata {
  const title = `${brand.name}: ${brand.tagline}`;
  return {
    metadataBase: siteUrl(),
    title: { default: title, template: `%s | ${brand.name}` },
    description: brand.description,
    applicationName: brand.name,
    openGraph: { type: "website", siteName: brand.name, title, description: brand.description, url: "/" },
    twitter: { card: "summary_large_image", title, description: brand.description },
  };
}

export const viewport: Viewport = {
  themeColor: "#fbf8f3",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" className={inter.variable}>
      <body className="font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:font-semibold"
        >
          Skip to content
        </a>
        {children}
        {/* Its script exists only on Vercel; anywhere else it would be a 404 and a console error. */}
        {analyticsEnabled() ? <Analytics /> : null}
      </body>
    </html>
  );
}
