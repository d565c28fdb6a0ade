import "server-only";
import { defaultStudioCredit } from "@/lib/studio";
import { forms, formNames, type FormName } from "@/lib/forms";
import { isSupportedCountry, type CountryCode } from "libphonenumber-js/min";
import { parse as parseConnectionString } from "pg-connection-string";
import { z } from "zod";

// The one place that reads the server's environment, parsed afresh on every call: a restart with new values takes
// effect without a rebuild.

/** The receiver of the launch invitations (INVITE_WEBHOOK_URL), beside each form's: failing and recovering the same way. */
export const INVITATIONS = "invitations";

/** Whose receiver a delivery goes to: a form's, or the invitations'. */
export type Receiver = FormName | typeof INVITATIONS;

/** Blank is unset: spaces only too (a value pasted between quotes). */
const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema);
const flag = withDefault(z.stringbool().default(false));
const milliseconds = (fallback: number) => withDefault(z.coerce.number().int().min(1).max(60_000).default(fallback));

const count = (fallback: number, max = 1_000_000_000) =>
  withDefault(z.coerce.number().int().min(1).max(max).default(fallback));

const anyHttpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const httpUrl = optional(anyHttpUrl);
const hostList = z
  .string()
  .default("")
  .transform((list) =>
    list
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9.-]+(:\d{1,5})?$/, { error: "must be host names, e.g. www.sous.example" })));

// fetch refuses a URL with user:pass@ in it, so every delivery would fail.
const withoutCredentials = (url: string) => {
  if (!URL.canParse(url)) return true;
  const { username, password } = new URL(url);
  return !username && !password;
};
const webhookUrl = optional(
  anyHttpUrl.refine(withoutCredentials, {
    error: "must not hold a user name or password (fetch refuses them; use the AUTH_HEADER variable)",
  }),
);

const country = z
  .string()
  .trim()
  .toUpperCase()
  .refine((code): code is CountryCode => isSupportedCountry(code), {
    error: "must be a two-letter country code, e.g. US",
  });
const countries = z
  .string()
  .transform((list) =>
    list
      .split(",")
      .map((code) => code.trim())
      .filter(Boolean),
  )
  .pipe(z.array(country).min(1));

// Like Svix's: from seconds to hours, about a day and a half in all.
const defaultSchedule = [5, 60, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000];
const schedule = z
  .string()
  .transform((list) =>
    list
      .split(",")
      .map((delay) => delay.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(z.string().regex(/^\d+$/, { error: "must list whole seconds, e.g. 5,60,300" }).transform(Number)).min(1),
  )
  .pipe(
    z.array(
      z
        .number()
        .min(1)
        .max(7 * 86_400),
    ),
  );

// Several, separated by spaces, sign every delivery with each: the rotation path.
const webhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, { error: "must be whsec_ followed by base64" })
  .refine(
    (secret) => {
      const bytes = Buffer.from(secret.slice("whsec_".length), "base64").length;
      return bytes >= 24 && bytes <= 64;
    },
    { error: "must hold 24 to 64 random bytes" },
  );
const webhookSecrets = optional(
  z
    .string()
    .transform((value) => value.trim().split(/\s+/))
    .pipe(z.array(webhookSecret)),
);

function fetchAccepts({ name, value }: { name: string; value: string }) {
  try {
    new Headers([[name, value]]);
    return true;
  } catch {
    return false;
  }
}

// Printable ASCII only: anything else is not read alike by every receiver, and fetch refuses some of it.
const authHeader = optional(
  z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*[^\r\n]*[^\s][^\r\n]*$/, {
      error: 'must look like "Header-Name: value"',
    })
    .regex(/^[\x20-\x7e\t]*$/, { error: "must be printable ASCII" })
    .transform((line) => {
      const colon = line.indexOf(":");
      return { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
    })
    .refine(fetchAccepts, { error: "is a header fetch refuses" }),
);

/** Placeholders until an operator sets them; start-up says so. */
export const businessDefaults = {
  BUSINESS_LEGAL_NAME: "Sous",
  BUSINESS_POSTAL_ADDRESS: "",
  BUSINESS_SUPPORT_EMAIL: "support@example.com",
  LEGAL_EFFECTIVE_DATE: "2026-11-24",
  STUDIO_CREDIT: defaultStudioCredit,
} as const;

/** A zone this Node's Intl knows, by its IANA name. */
export function isTimeZone(zone: string) {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const timeZone = z
  .string()
  .trim()
  .refine(isTimeZone, { error: "must be a time zone of the IANA database, e.g. America/New_York" });

/** libpq's form, the socket form included (postgresql://user:pass@/db?host=/run/postgresql), which a WHATWG URL refuses. */
const postgresUrl = z.string().refine(
  (url) => {
    if (!/^postgres(ql)?:\/\//.test(url)) return false;
    try {
      const { host } = parseConnectionString(url);
      return Boolean(host);
    } catch {
      return false;
    }
  },
  { error: "must be a postgres:// or postgresql:// URL" },
);

/** A form's upper-cased name is its variables' prefix (waitlist → WAITLIST_WEBHOOK_URL); the invitations' is INVITE. */
export function webhookVariables(receiver: Receiver) {
  const prefix = `${receiver === INVITATIONS ? "INVITE" : receiver.toUpperCase()}_WEBHOOK`;
  return { url: `${prefix}_URL`, secrets: `${prefix}_SECRET`, auth: `${prefix}_AUTH_HEADER` } as const;
}

const receivers: readonly Receiver[] = [...formNames, INVITATIONS];

// Each form's variables are named by its definition: a new form adds its own without a line here.
const receiverShape = Object.fromEntries(
  receivers.flatMap((receiver) => {
    const names = webhookVariables(receiver);
    return [
      [names.url, webhookUrl],
      [names.secrets, webhookSecrets],
      [names.auth, authHeader],
    ];
  }),
);
const ceilings = Object.values(forms).flatMap(({ name, limits }) =>
  limits.ceiling ? [{ name, ...limits.ceiling }] : [],
);
const ceilingShape = Object.fromEntries(
  ceilings.flatMap(({ perMinute, perDay }) => [
    [perMinute.variable, count(perMinute.fallback)],
    [perDay.variable, count(perDay.fallback)],
  ]),
);

/** Local hours, on the number's clock. */
export type SendingHours = { from: number; to: number };

// The hours no state rule we know of is narrower than, and no wider than the TCPA's 8 a.m. to 9 p.m.
const defaultHours: SendingHours = { from: 9, to: 20 };
const bounds = { from: 8, to: 21 };

const hours = withDefault(
  z
    .string()
    .default(`${defaultHours.from}-${defaultHours.to}`)
    .transform((text, context) => {
      const match = /^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$/.exec(text);
      const [from, to] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
      if (!(from >= bounds.from && to <= bounds.to && from < to)) {
        context.addIssue({
          code: "custom",
          message: `must be two local hours FROM-TO within ${bounds.from}-${bounds.to} (the TCPA's 8 a.m. to 9 p.m.), FROM before TO, e.g. 9-20`,
        });
        return z.NEVER;
      }
      return { from, to } satisfies SendingHours;
    }),
);

const envSchema = z.object({
  // OUTBOX_DIR, its name before the database, is read when it is unset.
  DATA_DIR: withDefault(z.string().default("data")),
  DATABASE_URL: optional(postgresUrl),
  LEAD_RETENTION_DAYS: count(30, 3_650),
  // Four years: the federal limit for TCPA suits, so the proof outlives any claim.
  CONSENT_RETENTION_DAYS: count(1_461, 36_500),
  CONSENT_WEBHOOK_SECRET: webhookSecrets,

  BUSINESS_LEGAL_NAME: withDefault(z.string().trim().min(1).max(200).default(businessDefaults.BUSINESS_LEGAL_NAME)),
  STUDIO_CREDIT: withDefault(z.string().trim().min(1).max(200).default(businessDefaults.STUDIO_CREDIT)),
  BUSINESS_POSTAL_ADDRESS: withDefault(z.string().trim().max(300).default(businessDefaults.BUSINESS_POSTAL_ADDRESS)),
  BUSINESS_SUPPORT_EMAIL: withDefault(
    z.email({ error: "must be an email address" }).default(businessDefaults.BUSINESS_SUPPORT_EMAIL),
  ),
  // The console's days and weeks.
  BUSINESS_TIME_ZONE: withDefault(timeZone.default("UTC")),
  LEGAL_EFFECTIVE_DATE: withDefault(
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date, YYYY-MM-DD" })
      .refine(
        (date) => {
          const day = new Date(`${date}T00:00:00Z`);
          return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(date);
        },
        { error: "must be a real date" },
      )
      .default(businessDefaults.LEGAL_EFFECTIVE_DATE),
  ),

  WEBHOOK_DEADLINE_MS: milliseconds(9_000),
  WEBHOOK_ATTEMPT_TIMEOUT_MS: milliseconds(4_000),
  WEBHOOK_MAX_RETRIES: withDefault(z.coerce.number().int().min(0).max(5).default(2)),
  WEBHOOK_RETRY_BASE_MS: milliseconds(300),

  REDELIVERY_SCHEDULE_SECONDS: withDefault(schedule.default(defaultSchedule)),
  REDELIVERY_POLL_MS: withDefault(z.coerce.number().int().min(100).max(600_000).default(5_000)),
  REDELIVERY_CONCURRENCY: count(4, 64),
  REDELIVERY_PASS_BUDGET_MS: withDefault(z.coerce.number().int().min(100).max(3_600_000).default(30_000)),
  REDELIVERY_PROBE_SECONDS: count(60, 3_600),
  CRON_SECRET: optional(z.string().min(16, { error: "must be at least 16 characters" })),

  RATE_LIMIT_FORM_POINTS: count(5),
  RATE_LIMIT_FORM_WINDOW_SECONDS: count(600, 86_400 * 30),
  RATE_LIMIT_PHONE_POINTS: count(3),
  RATE_LIMIT_PHONE_WINDOW_SECONDS: count(86_400, 86_400 * 30),
  RATE_LIMIT_EMAIL_POINTS: count(3),
  RATE_LIMIT_EMAIL_WINDOW_SECONDS: count(86_400, 86_400 * 30),
  REDIS_URL: optional(z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })),
  REDIS_COMMAND_TIMEOUT_MS: withDefault(z.coerce.number().int().min(10).max(5_000).default(300)),
  RATE_LIMIT_KEY_SECRET: optional(z.string().min(32, { error: "must be at least 32 characters" })),

  PHONE_DEFAULT_COUNTRY: withDefault(country.default("US")),
  WAITLIST_PHONE_COUNTRIES: withDefault(countries.default(["US", "CA"])),
  TRUSTED_PROXY_HOPS: optional(z.coerce.number().int().min(0).max(10)),

  HEALTH_MAX_PENDING_AGE_SECONDS: count(3_600, 30 * 86_400),
  HEALTH_TOKEN: optional(z.string().min(16, { error: "must be at least 16 characters" })),
  ALERT_WEBHOOK_URL: webhookUrl,
  ALERT_WEBHOOK_SECRET: webhookSecrets,
  ALERT_MIN_INTERVAL_MINUTES: count(60, 7 * 24 * 60),
  ALERT_GRACE_MINUTES: count(5, 24 * 60),
  // An http:// URL to another host carries the lead and the auth header in clear: refused unless this is on.
  ALLOW_HTTP_WEBHOOKS: flag,

  SITE_URL: httpUrl,
  CONSOLE_SETUP_TOKEN: optional(z.string().min(32, { error: "must be at least 32 characters" })),
  AUDIT_RETENTION_DAYS: count(400, 36_500),
  SITE_ALIASES: withDefault(hostList),
  VERCEL_PROJECT_PRODUCTION_URL: optional(z.string()),
  VERCEL: flag,
  ENABLE_VERCEL_ANALYTICS: flag,

  // The launch invitations: where their link leads, their pace and their sending hours.
  INVITE_URL: optional(z.url({ protocol: /^https$/, error: "must be an https:// URL" })),
  INVITE_PER_MINUTE: count(60, 6_000),
  INVITE_HOURS: hours,
  // Set by `npm start` (scripts/start.mjs), never by an operator: the header carrying the socket's address.
  SOUS_SOCKET_ADDRESS_HEADER: optional(z.string()),
});

// The receivers' and the forms' variables, parsed with the rest; read through `webhooks` and `ceilings`.
const settingsSchema = envSchema.extend({ ...receiverShape, ...ceilingShape });

type ParsedEnv = z.infer<typeof envSchema>;

type ProxyHopsSource = "setting" | "default" | "vercel";

export type WebhookSettings = {
  url: string | undefined;
  secrets: string[] | undefined;
  auth: { name: string; value: string } | undefined;
  /** The variable that holds the URL, for log lines. */
  urlVariable: string;
};

export type ServerEnv = Omit<ParsedEnv, "TRUSTED_PROXY_HOPS" | "INVITE_URL" | "INVITE_PER_MINUTE" | "INVITE_HOURS"> & {
  TRUSTED_PROXY_HOPS: number;
  trustedProxyHopsFrom: ProxyHopsSource;
  /** Where each receiver is sent, and how it proves it. */
  webhooks: Record<Receiver, WebhookSettings>;
  /** A form's ceiling for every client together, where its definition sets one. */
  ceilings: Partial<Record<FormName, { perMinute: number; perDay: number }>>;
  invite: { webhook: WebhookSettings; link: string | undefined; perMinute: number; hours: SendingHours };
};

/** None under `npm start` (a client's X-Forwarded-For is not believed); one on Vercel, whose edge always writes it. */
function trustedProxyHops(env: ParsedEnv): Pick<ServerEnv, "TRUSTED_PROXY_HOPS" | "trustedProxyHopsFrom"> {
  if (env.TRUSTED_PROXY_HOPS !== undefined)
    return { TRUSTED_PROXY_HOPS: env.TRUSTED_PROXY_HOPS, trustedProxyHopsFrom: "setting" };
  return env.VERCEL
    ? { TRUSTED_PROXY_HOPS: 1, trustedProxyHopsFrom: "vercel" }
    : { TRUSTED_PROXY_HOPS: 0, trustedProxyHopsFrom: "default" };
}

export class EnvError extends Error {
  override name = "EnvError";
  constructor(readonly problems: string[]) {
    super(`Invalid server environment: ${problems.join("; ")}`);
  }
}

export function problemsOf(read: () => unknown) {
  try {
    read();
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
}

export function readEnv(): ServerEnv {
  const source = process.env;
  const result = settingsSchema.safeParse({ ...source, DATA_DIR: source.DATA_DIR?.trim() || source.OUTBOX_DIR });
  if (!result.success)
    throw new EnvError(result.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`));
  const values: Record<string, unknown> = result.data;
  const parsed = Object.fromEntries(Object.keys(envSchema.shape).map((key) => [key, values[key]])) as ParsedEnv;
  const { INVITE_URL, INVITE_PER_MINUTE, INVITE_HOURS, ...env } = parsed;
  const webhooks = Object.fromEntries(
    receivers.map((receiver) => {
      const names = webhookVariables(receiver);
      const webhook = { url: values[names.url], secrets: values[names.secrets], auth: values[names.auth] };
      return [receiver, { ...webhook, urlVariable: names.url } as WebhookSettings];
    }),
  ) as ServerEnv["webhooks"];
  return {
    ...env,
    ...trustedProxyHops(parsed),
    webhooks,
    ceilings: Object.fromEntries(
      ceilings.map(({ name, perMinute, perDay }) => [
        name,
        { perMinute: values[perMinute.variable] as number, perDay: values[perDay.variable] as number },
      ]),
    ),
    invite: { webhook: webhooks[INVITATIONS], link: INVITE_URL, perMinute: INVITE_PER_MINUTE, hours: INVITE_HOURS },
  };
}

const loopbackHosts = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a URL sends in clear to another machine: http:// to anything but this one. */
export const sendsInClear = (url: string) => {
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" && !loopbackHosts.test(hostname);
};

/**
 * Whether `npm run invite -- send` (and the console's Send) refuses a wave unless told to send it unsigned: when
 * the invitations would carry neither a signature nor the auth header. The start-up lines say the same from here.
 */
export const sendRefusesUnsigned = ({ secrets, auth }: Pick<WebhookSettings, "secrets" | "auth">) =>
  !secrets?.length && !auth;

const addressSchema = envSchema.pick({ SITE_URL: true, SITE_ALIASES: true, VERCEL_PROJECT_PRODUCTION_URL: true });

/** The site's own address and aliases alone: what a visit's first view asks, without parsing every setting. */
export function readSiteAddress() {
  const result = addressSchema.safeParse(process.env);
  if (!result.success)
    throw new EnvError(result.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`));
  return result.data;
}

/** The site knows its own address: SITE_URL, or the production domain Vercel sets. */
export const siteAddressSet = (env: Pick<ServerEnv, "SITE_URL" | "VERCEL_PROJECT_PRODUCTION_URL">) =>
  Boolean(env.SITE_URL || env.VERCEL_PROJECT_PRODUCTION_URL);

/** Where the invitations go, where their link leads, and the site's address that link is on: all three set. */
export const invitationsConfigured = (env: Pick<ServerEnv, "invite" | "SITE_URL" | "VERCEL_PROJECT_PRODUCTION_URL">) =>
  Boolean(env.invite.webhook.url && env.invite.link && siteAddressSet(env));
