import type { Locator, Page } from "@playwright/test";
import { contactFields, contactMessages } from "@/lib/forms/contact";
import { untilHydrated } from "../hydration";

export type ContactInput = {
  name: string;
  email: string;
  phone: string;
  clientCount: string;
  currentTools: string;
  message: string;
};

/** The contact form on the landing page, as a visitor sees it. */
export class ContactFormPage {
  readonly section: Locator;
  readonly name: Locator;
  readonly email: Locator;
  readonly phone: Locator;
  readonly clientCount: Locator;
  readonly currentTools: Locator;
  readonly message: Locator;
  readonly submit: Locator;
  readonly busy: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.section = this.page.locator("#contact");
    this.name = this.section.getByLabel(contactFields.name.label, { exact: true });
    this.email = this.section.getByLabel(contactFields.email.label, { exact: true });
    this.phone = this.section.getByLabel(contactFields.phone.label, { exact: true });
    this.clientCount = this.section.getByLabel(contactFields.clientCount.label, { exact: true });
    this.currentTools = this.section.getByLabel(contactFields.currentTools.label, { exact: true });
    this.message = this.section.getByLabel(contactFields.message.label, { exact: true });
    this.submit = this.section.getByRole("button", { name: contactMessages.submit });
    this.busy = this.section.getByRole("button", { name: contactMessages.busy });
    // Inline on the page, or, for a request that went through without JavaScript, on its result page (/sent/contact).
    this.status = this.section.locator("[role=status]").or(this.page.locator("#result"));
  }

  /** The landing page, at the form or (`"/"`) at its top; with JavaScript on, once the form is hydrated. */
  async open(path: "/#contact" | "/" = "/#contact") {
    await this.page.goto(path);
    await untilHydrated(this.section.locator("form"));
  }

  async fill(input: ContactInput) {
    await this.name.fill(input.name);
    await this.email.fill(input.email);
    await this.phone.fill(input.phone);
    await this.clientCount.selectOption(input.clientCount);
    await this.currentTools.fill(input.currentTools);
    await this.message.fill(input.message);
  }

  async values(): Promise<ContactInput> {
    return {
      name: await this.name.inputValue(),
      email: await this.email.inputValue(),
      phone: await this.phone.inputValue(),
      clientCount: await this.clientCount.inputValue(),
      currentTools: await this.currentTools.inputValue(),
      message: await this.message.inputValue(),
    };
  }
}
