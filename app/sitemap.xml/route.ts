import type { MetadataRoute } from "next";
import { siteUrl } from "@/server/env";

export default function sitemap(): MetadataRoute.Sitemap {
  const base = siteUrl();
  return [
    { url: new URL("/", base).href, changeFrequency: "monthly", priority: 1 },
    { url: new URL("/signup", base).href, changeFrequency: "monthly", priority: 0.8 },
    { url: new URL("/terms", base).href, changeFrequency: "yearly", priority: 0.3 },
    { url: new URL("/privacy", base).href, changeFrequency: "yearly", priority: 0.3 },
  ];
}
