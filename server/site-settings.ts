import "server-only";
import type { PhonePolicy } from "@/lib/forms/phone";
import type { BusinessIdentity } from "@/lib/business-identity";
import { businessDefaults, readEnv, readSiteAddress, type ServerEnv } from "./env";

// What the pages read of the environment when they render: at build, and at each hourly revalidation.

/** On Vercel, or where an operator turns it on: elsewhere its script would 404. */
export function analyticsEnabled() {
  const env = readEnv();
  return env.VERCEL || env.ENABLE_VERCEL_ANALYTICS;
}

/** SITE_URL, else Vercel's production domain, else the local server. */
export function siteUrl() {
  const env = readSiteAddress();
  if (env.SITE_URL) return new URL(env.SITE_URL);
  if (env.VERCEL_PROJECT_PRODUCTION_URL) return new URL(`https://${env.VERCEL_PROJECT_PRODUCTION_URL}`);
  return new URL("http://localhost:3000");
}

/** Never a request's own Host. */
export function siteHosts() {
  return [siteUrl().host, ...readSiteAddress().SITE_ALIASES];
}

export function phonePolicyOf(env: Pick<ServerEnv, "PHONE_DEFAULT_COUNTRY" | "WAITLIST_PHONE_COUNTRIES">): PhonePolicy {
  return { defaultCountry: env.PHONE_DEFAULT_COUNTRY, countries: env.WAITLIST_PHONE_COUNTRIES };
}

export function waitlistPhonePolicy(): PhonePolicy {
  return phonePolicyOf(readEnv());
}

export function businessIdentity(): BusinessIdentity {
  const env = readEnv();
  return {
    legalName: env.BUSINESS_LEGAL_NAME,
    postalAddress: env.BUSINESS_POSTAL_ADDRESS,
    supportEmail: env.BUSINESS_SUPPORT_EMAIL,
    effectiveDate: env.LEGAL_EFFECTIVE_DATE,
    leadRetentionDays: env.LEAD_RETENTION_DAYS,
    consentRetentionDays: env.CONSENT_RETENTION_DAYS,
    phoneCountries: env.WAITLIST_PHONE_COUNTRIES,
  };
}

/** Carriers and CASL ask for real ones. */
export function defaultedIdentity(env: Pick<ServerEnv, "BUSINESS_POSTAL_ADDRESS" | "BUSINESS_SUPPORT_EMAIL">) {
  return (["BUSINESS_POSTAL_ADDRESS", "BUSINESS_SUPPORT_EMAIL"] as const).filter(
    (name) => env[name] === businessDefaults[name],
  );
}

export function studioCredit(): string {
  return readEnv().STUDIO_CREDIT;
}
