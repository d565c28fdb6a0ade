import type { BrowserContext } from "@playwright/test";

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
