import "server-only";
import { statSync } from "node:fs";
import path from "node:path";
import { database, postgresTarget, sqliteFile, type Store } from "@/server/db/connect";
import { ownerExists } from "@/server/operators/operator-store";
import {
  EnvError,
  INVITATIONS,
  problemsOf,
  readEnv,
  sendRefusesUnsigned,
  sendsInClear,
  type Receiver,
  type ServerEnv,
  type WebhookSettings,
} from "@/server/env";
import { defaultedIdentity } from "@/server/site-settings";
import { smsTexts } from "@/lib/sms/program";
import { logEvent } from "@/server/log";
import { addressSource } from "@/server/forms/client-address";
import { connectLimitStore, ensureLimitKey } from "@/server/forms/limits";

const placeholders = { BUSINESS_POSTAL_ADDRESS: "postal address", BUSINESS_SUPPORT_EMAIL: "support email" } as const;

function refuse(problems: string[]): never {
  logEvent("error", { event: "startup_failed", message: new EnvError(problems).message });
  process.exit(1);
}

async function openDatabase(env: ServerEnv) {
  // Vercel's functions have no disk that outlives them: a lead kept in SQLite there would be lost.
  if (env.VERCEL && !env.DATABASE_URL)
    refuse(["DATABASE_URL must be set on Vercel: its functions have no writable disk for SQLite"]);
  try {
    const store = await database(env);
    logEvent("info", {
      event: "database_ready",
      engine: store.engine,
      at: env.DATABASE_URL ? postgresTarget(env.DATABASE_URL) : sqliteFile(env.DATA_DIR),
    });
    return store;
  } catch (error) {
    if (error instanceof EnvError) refuse(error.problems);
    throw error;
  }
}

function checkClearUrls(env: ServerEnv) {
  const urls = [
    ...Object.values(env.webhooks).map(({ urlVariable, url }) => [urlVariable, url] as const),
    ["ALERT_WEBHOOK_URL", env.ALERT_WEBHOOK_URL] as const,
  ].filter((entry): entry is readonly [string, string] => Boolean(entry[1]) && sendsInClear(entry[1]!));
  const variables = urls.map(([variable]) => variable);
  if (!variables.length) return;
  if (!env.ALLOW_HTTP_WEBHOOKS)
    refuse(
      variables.map(
        (variable) =>
          `${variable} is http:// to another machine: the lead and its auth header would cross the network in clear. Use https://, or set ALLOW_HTTP_WEBHOOKS=true on a network you trust`,
      ),
    );
  logEvent("warn", {
    event: "webhook_in_clear",
    variables,
    message: `${variables.join(" and ")} ${variables.length === 1 ? "is" : "are"} http:// to another machine, allowed by ALLOW_HTTP_WEBHOOKS: what they carry crosses the network in clear`,
  });
}

const envFiles = [".env", ".env.local", ".env.production", ".env.production.local"];

/** The settings files others can read: they hold every secret. */
function warnReadableEnvFiles(dir = process.cwd()) {
  const readable = envFiles.filter((name) => {
    const file = path.join(/* turbopackIgnore: true */ dir, name);
    try {
      // Read at run time in the server's folder: nothing for the build to trace.
      return (statSync(/* turbopackIgnore: true */ file).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  });
  if (!readable.length) return;
  logEvent("warn", {
    event: "env_file_readable",
    files: readable,
    message: `${readable.join(" and ")} can be read by other users of this machine, and hold the webhook secrets: run chmod 600 ${readable.join(" ")}`,
  });
}

function logClientAddress(env: ServerEnv) {
  const hops = env.TRUSTED_PROXY_HOPS;
  const from = addressSource(hops);
  const origin = {
    setting: "set by TRUSTED_PROXY_HOPS",
    default: "the default, TRUSTED_PROXY_HOPS unset",
    vercel: "the default on Vercel (VERCEL=1), TRUSTED_PROXY_HOPS unset",
  }[env.trustedProxyHopsFrom];
  const messages = {
    socket: `the connection's own address (${origin}): X-Forwarded-For is ignored, right when nothing stands between visitors and npm start`,
    "x-forwarded-for": `X-Forwarded-For, the address ${hops === 1 ? "the proxy" : `${hops} proxies back`} in front of the site wrote (${origin}): with no proxy there, a visitor can write their own into the rate limits and consent records (unset TRUSTED_PROXY_HOPS)`,
    unavailable: `TRUSTED_PROXY_HOPS=0 (${origin}) reads the connection's address, which only npm start passes on: started some other way, every visitor counts as one address, "unknown", in rate limits and consent records`,
  };
  // Believing X-Forwarded-For is right only where a proxy is known to write it: Vercel's edge.
  const level = from === "unavailable" ? "error" : from === "x-forwarded-for" && !env.VERCEL ? "warn" : "info";
  logEvent(level, {
    event: "client_address",
    trustedProxyHops: hops,
    setBy: env.trustedProxyHopsFrom,
    from,
    message: messages[from],
  });
}

const unsetMessages = (name: Receiver, urlVariable: string) =>
  name === INVITATIONS
    ? `${urlVariable} is not set: npm run invite -- send refuses, and invitations already queued wait until it is set`
    : `${urlVariable} is not set: ${name} submissions are kept as held leads (npm run leads -- export --form ${name}) and delivered once it is set`;
const unsignedMessages = (name: Receiver, webhook: WebhookSettings) => {
  const { urlVariable } = webhook;
  const secret = urlVariable.replace(/_URL$/, "_SECRET");
  if (name !== INVITATIONS)
    return `${urlVariable} is set without ${secret}: ${name} deliveries go out unsigned, and anyone who learns the URL can send the workflow leads (docs/webhooks.md)`;
  return sendRefusesUnsigned(webhook)
    ? `${urlVariable} is set without ${secret}: invitations would go out unsigned, and anyone who learns the URL could have the workflow text any number (docs/webhooks.md); npm run invite -- send refuses a wave unless told --unsigned`
    : `${urlVariable} is set without ${secret}: invitations go out unsigned, with only INVITE_WEBHOOK_AUTH_HEADER, which anyone who sees one request can send again (docs/webhooks.md); npm run invite -- send sends them so`;
};

/** By host only: automation URLs often carry a secret in their path. */
function logWebhooks(env: ServerEnv) {
  for (const [name, webhook] of Object.entries(env.webhooks) as [Receiver, WebhookSettings][]) {
    const who = name === INVITATIONS ? { receiver: INVITATIONS } : { form: name };
    if (!webhook.url) {
      logEvent("warn", { event: "webhook_unset", ...who, message: unsetMessages(name, webhook.urlVariable) });
      continue;
    }
    // How many secrets sign (two during a rotation), never which.
    const signedWith = webhook.secrets?.length ?? 0;
    logEvent("info", {
      event: "webhook_configured",
      ...who,
      host: new URL(webhook.url).host,
      secrets: signedWith,
      authHeader: Boolean(webhook.auth),
    });
    if (!signedWith) logEvent("warn", { event: "webhook_unsigned", ...who, message: unsignedMessages(name, webhook) });
  }
}

function warnAboutSettings(env: ServerEnv) {
  const defaulted = defaultedIdentity(env);
  if (defaulted.length) {
    logEvent("warn", {
      event: "business_identity_default",
      variables: defaulted,
      message: `${defaulted.join(" and ")} left at the default: /terms and /privacy show no real ${defaulted.map((name) => placeholders[name]).join(" or ")}, which carriers' SMS registration and CASL expect`,
    });
  }
  if (env.ALERT_WEBHOOK_URL)
    logEvent("info", { event: "alerts_configured", host: new URL(env.ALERT_WEBHOOK_URL).host });
  const helpText = smsTexts.help(env.BUSINESS_SUPPORT_EMAIL);
  if (helpText.length > 160) {
    logEvent("warn", {
      event: "support_email_long",
      characters: env.BUSINESS_SUPPORT_EMAIL.length,
      message: `BUSINESS_SUPPORT_EMAIL makes the HELP text ${helpText.length} characters: over one SMS segment (160), so each HELP answer is billed as two. ${160 - (helpText.length - env.BUSINESS_SUPPORT_EMAIL.length)} characters or fewer fit (docs/sms-registration.md)`,
    });
  }
  if (!env.CONSENT_WEBHOOK_SECRET) {
    logEvent("warn", {
      event: "consent_revoke_unset",
      message:
        "CONSENT_WEBHOOK_SECRET is not set: /api/consent/revoke and /api/consent/renew answer 404, so STOP replies must be recorded with npm run consent -- revoke, and a START cannot put a number back in force",
    });
  }
}

/** A bad setting stops the process here, loudly, naming it, rather than letting the site run until the first lead fails. */
export function checkSettings() {
  const problems = problemsOf(readEnv);
  if (problems.length) refuse(problems);
  const env = readEnv();
  checkClearUrls(env);
  warnReadableEnvFiles();
  logWebhooks(env);
  logClientAddress(env);
  warnAboutSettings(env);
  return env;
}

export async function startServices(env: ServerEnv) {
  const store = await openDatabase(env);
  await logConsoleSetup(store, env);
  if (!env.RATE_LIMIT_KEY_SECRET) {
    await ensureLimitKey(env);
    logEvent("info", {
      event: "rate_limit_key",
      from: "database",
      message:
        "RATE_LIMIT_KEY_SECRET is not set: the rate limits count under a random key this site made at its first start, kept in the database (limit_keys) for every instance; set the secret to choose your own (docs/security.md)",
    });
  }
  if (!env.REDIS_URL) return;
  const host = new URL(env.REDIS_URL).host;
  if (await connectLimitStore(env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS))
    logEvent("info", { event: "rate_limits_shared", store: "redis", host });
  else
    logEvent("warn", { event: "redis_unreachable", host, message: "rate limits count in memory until Redis answers" });
}

async function logConsoleSetup(store: Store, env: ServerEnv) {
  const owner = await ownerExists(store);
  if (!owner && env.CONSOLE_SETUP_TOKEN)
    logEvent("warn", {
      event: "console_setup",
      state: "open",
      message: "no console owner yet: /console/setup enrols the first with CONSOLE_SETUP_TOKEN",
    });
  else if (owner && env.CONSOLE_SETUP_TOKEN)
    logEvent("info", {
      event: "console_setup",
      state: "closed",
      message: "a console owner exists: CONSOLE_SETUP_TOKEN does nothing now and can be removed",
    });
  else if (!owner)
    logEvent("info", {
      event: "console_setup",
      state: "no owner",
      message:
        "no console owner yet: npm run operators -- add EMAIL --role owner, or CONSOLE_SETUP_TOKEN for /console/setup",
    });
}

export async function checkEnvironmentAtStart() {
  await startServices(checkSettings());
}
