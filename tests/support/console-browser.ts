import { expect, type BrowserContext, type Page } from "@playwright/test";
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
    options: { ...verifyingAuthenticator, transport: "internal" },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { page, credentials, cdp, authenticatorId };
}

const verifyingAuthenticator = {
  protocol: "ctap2",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

export type Authenticator = Awaited<ReturnType<typeof withAuthenticator>>;

/**
 * A copy of `from`'s passkey in `to`'s browser, on an authenticator of its
 * own: the operator's phone answering for a laptop. `giveBack` unplugs it and
 * syncs its counter back to `from`, as a synced passkey's is, so `from` signs
 * in again afterwards.
 */
export async function borrowPasskey(to: Authenticator, from: Authenticator) {
  const [credential] = await from.credentials();
  const { authenticatorId } = await to.cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { ...verifyingAuthenticator, transport: "usb" },
  });
  await to.cdp.send("WebAuthn.addCredential", { authenticatorId, credential: credential! });
  return async function giveBack() {
    const [used] = (await to.cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
    await to.cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    const original = { authenticatorId: from.authenticatorId, credentialId: credential!.credentialId };
    await from.cdp.send("WebAuthn.removeCredential", original);
    await from.cdp.send("WebAuthn.addCredential", { authenticatorId: from.authenticatorId, credential: used! });
  };
}

/**
 * Adding a passkey at a new device: `from`'s passkey, borrowed, answers the
 * console's confirmation, and is given back before the device registers its
 * own (the post that carries the confirmation's assertion is held until then).
 */
export async function confirmWithBorrowedPasskey(device: Authenticator, from: Authenticator, site: string) {
  let lent = true;
  const giveBack = await borrowPasskey(device, from);
  await device.page.route(`${site}/console/passkeys`, async (route) => {
    if (lent && (route.request().postData() ?? "").includes("authenticatorData")) {
      lent = false;
      await giveBack();
    }
    await route.continue();
  });
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

/** The first owner, founder@example.com, enrolled with the setup token in a browser of its own: its console page. */
export async function setUpFirstOwner(context: BrowserContext, site: string, setupToken: string) {
  const { page } = await withAuthenticator(context);
  await page.goto(`${site}/console/setup`);
  await page.getByLabel("Setup token").fill(setupToken);
  await page.getByLabel("Your email address").fill("founder@example.com");
  await pressCeremony(page, "Set up with a passkey");
  await expect(page).toHaveURL(`${site}/console`, { timeout: CEREMONY_MS });
  return page;
}
