import { Analytics } from "@vercel/analytics/next";
import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { brand } from "@/components/site/site-content";
import { analyticsEnabled, siteUrl } from "@/server/site-settings";
import { SiteStyles } from "@/components/site/site-styles";
// The stylesheet through Next's pipeline under `next dev` only (hot reload); the
// production build writes it once, from the server, in <SiteStyles> (package.json "imports").
import "#dev-styles";

export function generateMetadata(): Metadata {
  const title = `${brand.name}: ${brand.tagline}`;
  return {
    metadataBase: siteUrl(),
    title: { default: title, template: `%s | ${brand.name}` },
    description: brand.description,
    applicationName: brand.name,
    // app/icon.svg/route.ts and app/apple-icon.tsx: named here, as the first is a route, not a metadata file.
    icons: {
      icon: [{ url: "/icon.svg", type: "image/svg+xml", sizes: "any" }],
      apple: [{ url: "/apple-icon", type: "image/png", sizes: "180x180" }],
    },
    openGraph: { type: "website", siteName: brand.name, title, description: brand.description, url: "/" },
    twitter: { card: "summary_large_image", title, description: brand.description },
  };
}

export const viewport: Viewport = {
  themeColor: "#fbf8f3",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="font-sans">
        <SiteStyles />
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
