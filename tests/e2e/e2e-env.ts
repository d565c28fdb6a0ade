/** Ports and server environment shared by the Playwright config and the specs. */
const port = Number(process.env.E2E_PORT ?? 3210);
const receiverPort = Number(process.env.E2E_RECEIVER_PORT ?? 3211);
const receiverURL = `http://127.0.0.1:${receiverPort}`;

export const e2e = {
  port,
  baseURL: `http://127.0.0.1:${port}`,
  receiverPort,
  receiverURL,
  contactWebhookURL: `${receiverURL}/hooks/contact`,
  waitlistWebhookURL: `${receiverURL}/hooks/waitlist`,
  serverEnv: {
    CONTACT_WEBHOOK_URL: `${receiverURL}/hooks/contact`,
    WAITLIST_WEBHOOK_URL: `${receiverURL}/hooks/waitlist`,
    // The test build: the *.e2e.tsx fixtures too, in .next-e2e (see next.config.ts).
    E2E_TEST_BUILD: "1",
    // The browser specs share this server and sign up faster than any visitor;
    // the form-wide ceilings have tests of their own.
    RATE_LIMIT_WAITLIST_PER_MINUTE: "1000",
    NEXT_TELEMETRY_DISABLED: "1",
  },
};
