import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { uniquePhone } from "./receiver-client";

// The server under test was built and started with these set; none may reach a browser.
const secrets = [e2e.serverEnv.CONTACT_WEBHOOK_URL, e2e.serverEnv.WAITLIST_WEBHOOK_URL, e2e.receiverURL, `:${e2e.receiverPort}/`];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(full) : [full];
    }),
  );
  return nested.flat();
}

function expectNoSecret(text: string, where: string) {
  for (const secret of secrets) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

test("no webhook address is in any page, RSC payload or static file", async ({ request }) => {
  for (const pagePath of ["/", "/signup", "/no-such-page"]) {
    const html = await request.get(pagePath);
    expectNoSecret(await html.text(), `${pagePath} HTML`);
    const rsc = await request.get(pagePath, { headers: { RSC: "1" } });
    expect(rsc.headers()["content-type"]).toContain("text/x-component");
    expectNoSecret(await rsc.text(), `${pagePath} RSC payload`);
  }

  const files = await filesUnder(path.join(process.cwd(), ".next", "static"));
  const contents = await Promise.all(files.map((file) => readFile(file, "latin1")));
  // The scan does read the bundles: the sign-up form's own text is in one of them.
  expect(contents.some((text) => text.includes("Joining Waitlist..."))).toBe(true);
  contents.forEach((text, index) => expectNoSecret(text, files[index] ?? ""));
});

test("no webhook address is in what a form post sends back", async ({ page, jsEnabled }) => {
  // Pass the post through ourselves to keep its answer; the browser may not keep a streamed body.
  let body = "";
  await page.route("/signup", async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    const response = await route.fetch();
    body = await response.text();
    await route.fulfill({ response, body });
  });
  await page.goto("/signup");
  await page.getByLabel("Full Name", { exact: true }).fill("Ada [status=500]");
  await page.getByLabel("Phone Number", { exact: true }).fill(uniquePhone().typed);
  await page.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Join Early Access" }).click();
  await expect(page.getByText("Something went wrong. Please try again.")).toBeVisible();
  expect(body.length).toBeGreaterThan(0);
  expectNoSecret(body, `the ${jsEnabled ? "action" : "page"} response`);
});
