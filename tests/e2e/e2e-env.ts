/** Ports and server environment shared by the Playwright config and the specs. */
const port = Number(process.env.E2E_PORT ?? 3210);
const receiverPort = Number(process.env.E2E_RECEIVER_PORT ?? 3211);
const receiverURL = `http://127.0.0.1:${receiverPort}`;

// Fixed, so that the config and every worker know them; they sign nothing real.
const secret = (label: string) =>
  `whsec_${Buffer.from(`e2e ${label} signing secret, 32 bytes`.slice(0, 32)).toString("base64")}`;
const webhookSecrets = { contact: secret("contact"), waitlist: secret("waitlist") };
const authHeaderValues = { contact: "e2e-contact-header-value-7f3a91", waitlist: "e2e-waitlist-header-value-c04d2e" };

export const e2e = {
  port,
  baseURL: `http://127.0.0.1:${port}`,
  receiverPort,
  receiverURL,
  contactWebhookURL: `${receiverURL}/hooks/contact`,
  waitlistWebhookURL: `${receiverURL}/hooks/waitlist`,
  /** The build the browser specs serve: the production build, made with the webhook addresses below set. */
  distDir: ".next",
  /** What signs each form's deliveries, and the header value each carries, as the receiver should see them. */
  webhookSecrets,
  authHeaderValues,
  /** Everything of the server's env that must never reach a browser. */
  secrets: [...Object.values(webhookSecrets), ...Object.values(authHeaderValues)],
  serverEnv: {
    CONTACT_WEBHOOK_URL: `${receiverURL}/hooks/contact`,
    WAITLIST_WEBHOOK_URL: `${receiverURL}/hooks/waitlist`,
    CONTACT_WEBHOOK_SECRET: webhookSecrets.contact,
    WAITLIST_WEBHOOK_SECRET: webhookSecrets.waitlist,
    CONTACT_WEBHOOK_AUTH_HEADER: `X-E2E-Key: ${authHeaderValues.contact}`,
    WAITLIST_WEBHOOK_AUTH_HEADER: `X-E2E-Key: ${authHeaderValues.waitlist}`,
    // The browser specs share this server and sign up faster than any visitor;
    // the form-wide ceilings have tests of their own.
    RATE_LIMIT_WAITLIST_PER_MINUTE: "1000",
    WAITLIST_DAILY_LIMIT: "1000000",
    // The database of this run, outside the build, emptied each time Playwright starts its server (playwright.config.ts).
    // A lead the receiver failed on purpose is not redelivered during the run,
    // so the specs count exactly the attempts they caused; the redelivery
    // specs start servers of their own with a short schedule.
    DATA_DIR: ".e2e-data",
    REDELIVERY_SCHEDULE_SECONDS: "86400",
    // Nor probed ahead of that schedule while its receiver fails (probeFailing, server/outbox/pass.ts).
    REDELIVERY_PROBE_SECONDS: "3600",
    // As behind one proxy: each spec writes the X-Forwarded-For of the visitor it plays.
    TRUSTED_PROXY_HOPS: "1",
    // The address the browser specs use: a sign-up's consent record keeps its page on it.
    SITE_ALIASES: `127.0.0.1:${port}`,
    NEXT_TELEMETRY_DISABLED: "1",
  },
};

/**
 * The browser every spec launches: Debian's chromium-headless-shell, the headless-only build of Chromium that Playwright
 * itself runs headless by default (its own download is not reachable here). Against the full browser in its new headless
 * mode, on this machine's two cores, side by side: the 148 page specs in 122 s instead of 221 s, 85 core-seconds instead
 * of 161 (docs/testing.md, "The browser"). CHROMIUM_PATH picks another Chromium or Chrome; the benchmarks keep the full
 * browser (bench/lib/config.mjs), since they measure what a visitor's Chrome does.
 */
export const browserLaunch = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell",
  args: ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};

/** The browser of a server spec that needs one (a server project has none of its own): `test.use(serverSpecBrowser)`. */
export const serverSpecBrowser = { launchOptions: browserLaunch };
