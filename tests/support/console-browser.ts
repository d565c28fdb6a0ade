import type { BrowserContext, Page } from "@playwright/test";
import { untilHydrated } from "../e2e/hydration";

/**
 * A page in its own browser context holding one virtual platform
 * authenticator (the DevTools protocol's WebAuthn domain), which verifies its
 * user: what registers and uses a passkey in the console's browser specs.
 */
export async function withAuthenticator(context: BrowserContext) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { page, credentials };
}

/**
 * How long a ceremony may take from the press to the console's next page: two
 * server actions, the authenticator, then a full load of a page rendered per
 * request. Under CI's three workers beside n8n that took more than the 5 s an
 * expectation waits by default (stop 62's CI: the load of /console was under
 * way at 5 s); the wait ends as soon as the page is there.
 */
export const CEREMONY_MS = 30_000;

/** Presses a ceremony's button once React has hydrated it: pressed before, it would do nothing a passkey needs. */
export async function pressCeremony(page: Page, name: string) {
  const button = page.getByRole("button", { name });
  await untilHydrated(button);
  await button.click();
}
