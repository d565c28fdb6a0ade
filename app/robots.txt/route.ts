import { siteUrl } from "@/server/site-settings";

// A route rather than a robots.ts metadata file, so its type names its charset; built once, like the pages.
export const dynamic = "force-static";

export function GET() {
  const text = ["User-Agent: *", "Allow: /", "", `Sitemap: ${new URL("/sitemap.xml", siteUrl()).href}`, ""].join("\n");
  return new Response(text, { headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
