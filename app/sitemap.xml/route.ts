import { formPages } from "@/lib/forms";
import { siteUrl } from "@/server/site-settings";

// A route rather than a sitemap.ts metadata file, so its type names its charset; built once, like the pages.
export const dynamic = "force-static";

// The landing page, every page a form lives on (from the forms' list), and the legal pages.
const pages = [
  { path: "/", changeFrequency: "monthly", priority: 1 },
  ...formPages.filter((path) => path !== "/").map((path) => ({ path, changeFrequency: "monthly", priority: 0.8 })),
  { path: "/terms", changeFrequency: "yearly", priority: 0.3 },
  { path: "/privacy", changeFrequency: "yearly", priority: 0.3 },
];

export function GET() {
  const base = siteUrl();
  // The addresses are the site's own URLs: nothing in them needs escaping beyond &.
  const urls = pages.map(
    ({ path, changeFrequency, priority }) =>
      `<url>\n<loc>${new URL(path, base).href.replaceAll("&", "&amp;")}</loc>\n<changefreq>${changeFrequency}</changefreq>\n<priority>${priority}</priority>\n</url>`,
  );
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
  return new Response(xml, { headers: { "Content-Type": "application/xml; charset=utf-8" } });
}
