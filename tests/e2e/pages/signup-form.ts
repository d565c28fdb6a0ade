import type { Locator, Page } from "@playwright/test";
import { waitlistFields, waitlistMessages } from "@/lib/forms/waitlist";
import { untilHydrated } from "../hydration";

/** The sign-up form at /signup, as a visitor sees it. */
export class SignupFormPage {
  readonly main: Locator;
  readonly name: Locator;
  readonly phone: Locator;
  readonly consent: Locator;
  readonly submit: Locator;
  readonly busy: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.main = this.page.getByRole("main");
    this.name = this.main.getByLabel(waitlistFields.name.label, { exact: true });
    this.phone = this.main.getByLabel(waitlistFields.phone.label, { exact: true });
    this.consent = this.main.getByRole("checkbox");
    this.submit = this.main.getByRole("button", { name: waitlistMessages.submit });
    this.busy = this.main.getByRole("button", { name: waitlistMessages.busy });
    this.status = this.main.locator("[role=status]");
  }

  /**
   * `waitUntil` as page.goto's: "domcontentloaded" when a test holds the page's
   * scripts. Otherwise, with JavaScript on, it returns once the form is hydrated.
   */
  async open(options: { waitUntil?: "load" | "domcontentloaded" } = {}) {
    await this.page.goto("/signup", options);
    if (options.waitUntil !== "domcontentloaded") await untilHydrated(this.main.locator("form"));
  }

  async fill(input: { name: string; phone: string; consent: boolean }) {
    await this.name.fill(input.name);
    await this.phone.fill(input.phone);
    await this.consent.setChecked(input.consent);
  }
}
