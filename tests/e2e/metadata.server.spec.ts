import { expect, test } from "./fixtures";

// The e2e server runs without SITE_URL, so addresses fall back to the local default.
const site = "http://localhost:3000";

test("sitemap.xml lists the four pages", async ({ request }) => {
  const response = await request.get("/sitemap.xml");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("xml");
  const xml = await response.text();
  expect(xml).toContain(`<loc>${site}/</loc>`);
  expect(xml).toContain(`<loc>${site}/signup</loc>`);
  expect(xml).toContain(`<loc>${site}/terms</loc>`);
  expect(xml).toContain(`<loc>${site}/privacy</loc>`);
  expect(xml.match(/<url>/g)).toHaveLength(4);
});

test("robots.txt allows the whole site, names no test route and names the sitemap", async ({ request }) => {
  const response = await request.get("/robots.txt");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("text/plain");
  const text = await response.text();
  expect(text).toMatch(/^User-Agent: \*$/m);
  expect(text).toMatch(/^Allow: \/$/m);
  expect(text).not.toMatch(/disallow|test/i);
  expect(text).toContain(`Sitemap: ${site}/sitemap.xml`);
});

for (const image of ["/opengraph-image", "/twitter-image"]) {
  test(`${image} answers with a 1200×630 PNG`, async ({ request }) => {
    const response = await request.get(image);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("image/png");
    const png = await response.body();
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    // Width and height sit in the IHDR chunk.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });
}

for (const { path, title, canonical } of [
  { path: "/", title: /^Sous: /, canonical: site },
  { path: "/signup", title: /^Early Access Sign Up \| Sous$/, canonical: `${site}/signup` },
  { path: "/terms", title: /^SMS Terms \| Sous$/, canonical: `${site}/terms` },
  { path: "/privacy", title: /^Privacy Policy \| Sous$/, canonical: `${site}/privacy` },
]) {
  test(`${path} has its title, description, canonical URL and social cards`, async ({ request }) => {
    const html = await (await request.get(path)).text();
    const meta = (attribute: string, name: string) =>
      html.match(new RegExp(`<meta ${attribute}="${name}" content="([^"]*)"`))?.[1];
    expect(html.match(/<title>([^<]*)<\/title>/)?.[1]).toMatch(title);
    expect(meta("name", "description")?.length).toBeGreaterThan(50);
    expect(html).toContain(`<link rel="canonical" href="${canonical}"/>`);
    expect(meta("property", "og:url")).toBe(canonical);
    expect(meta("property", "og:image")).toMatch(new RegExp(`^${site}/opengraph-image`));
    expect(meta("name", "twitter:card")).toBe("summary_large_image");
    expect(meta("name", "twitter:image")).toMatch(new RegExp(`^${site}/twitter-image`));
  });
}

test("the favicon and the home-screen icon answer", async ({ request }) => {
  const favicon = await request.get("/icon.svg");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toContain("image/svg+xml");
  const apple = await request.get("/apple-icon");
  expect(apple.status()).toBe(200);
  expect(apple.headers()["content-type"]).toBe("image/png");

  const html = await (await request.get("/")).text();
  expect(html).toContain(`<link rel="icon" href="/icon.svg" type="image/svg+xml" sizes="any"/>`);
  expect(html).toMatch(/<link rel="apple-touch-icon" href="\/apple-icon[^"]*"/);
});
