import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { e2e } from "./e2e-env";
import { expect, sameWithoutScripts, test } from "./fixtures";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { SignupFormPage } from "./pages/signup-form";
import { uniquePhone } from "./receiver-client";

// The server under test was built and started with these set; none may reach a
// browser: the webhook addresses, the signing secrets (whole, and their base64
// key alone) and the auth header values.
const secrets = [
  e2e.serverEnv.CONTACT_WEBHOOK_URL,
  e2e.serverEnv.WAITLIST_WEBHOOK_URL,
  e2e.receiverURL,
  `:${e2e.receiverPort}/`,
  ...e2e.secrets,
  ...e2e.secrets.filter((value) => value.startsWith("whsec_")).map((value) => value.slice("whsec_".length)),
];

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

test(
  "no webhook address, secret or auth header is in any page, RSC payload or static file",
  sameWithoutScripts,
  async ({ request }) => {
    for (const pagePath of ["/", "/signup", "/no-such-page"]) {
      const html = await request.get(pagePath);
      expectNoSecret(await html.text(), `${pagePath} HTML`);
      const rsc = await request.get(pagePath, { headers: { RSC: "1" } });
      expect(rsc.headers()["content-type"]).toContain("text/x-component");
      expectNoSecret(await rsc.text(), `${pagePath} RSC payload`);
    }

    const files = await filesUnder(path.join(process.cwd(), e2e.distDir, "static"));
    const contents = await Promise.all(files.map((file) => readFile(file, "latin1")));
    // The scan does read the bundles: the sign-up form's own text is in one of them.
    expect(contents.some((text) => text.includes("Joining Waitlist..."))).toBe(true);
    contents.forEach((text, index) => expectNoSecret(text, files[index] ?? ""));
  },
);

for (const { outcome, directive, shows } of [
  { outcome: "failure", directive: " [status=500]", shows: waitlistMessages.failure.text },
  { outcome: "success", directive: "", shows: waitlistMessages.success.text },
]) {
  test(`no webhook address, secret or auth header is in what a form post sends back on ${outcome}`, async ({
    page,
    jsEnabled,
  }) => {
    // Pass the post through ourselves to keep its answer; the browser may not keep a streamed body.
    let body = "";
    await page.route("/signup", async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      const response = await route.fetch();
      body = await response.text();
      await route.fulfill({ response, body });
    });
    const form = new SignupFormPage(page);
    await form.open();
    await form.fill({ name: `Ada${directive}`, phone: uniquePhone().typed, consent: true });
    await form.submit.click();
    await expect(page.getByText(shows)).toBeVisible();
    expect(body.length).toBeGreaterThan(0);
    expectNoSecret(body, `the ${jsEnabled ? "action" : "page"} response`);
  });
}
