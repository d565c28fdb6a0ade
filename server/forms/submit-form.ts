import "server-only";
import { randomUUID } from "node:crypto";
import { cookies, headers } from "next/headers";
import { after } from "next/server";
import { z } from "zod";
import { forms, isFormName, type FormName, type ValuesByForm } from "@/lib/forms";
import { consentTextOf, pageOf, type FormDefinition, type PostedValues } from "@/lib/forms/define";
import { isKept, type FieldErrors, type FormState } from "@/lib/forms/form-state";
import { honeypotName } from "@/lib/forms/honeypot";
import { readEnv, type ServerEnv } from "@/server/env";
import { phonePolicyOf } from "@/server/site-settings";
import { logEvent } from "@/server/log";
import { addressKey, clientAddress } from "@/server/forms/client-address";
import { checkLimits } from "@/server/forms/limits";
import { submitLead } from "@/server/forms/submit-lead";
import { alertsSettled } from "@/server/outbox/alerts";
import { consentEvidence } from "@/server/consent/evidence";
import { touchOf, TOUCH_COOKIE } from "@/server/web/visits";
import { noteDelivered, paceLikeDelivery } from "./answer-pace";

type Values = PostedValues;
export type ValuesOf<Name extends string> = Name extends keyof ValuesByForm ? ValuesByForm[Name] : Values;

/** Absent or a file counts as empty; a checked box posts "on". */
function readValues(formData: FormData, emptyValues: Values): Values {
  return Object.fromEntries(
    Object.entries(emptyValues).map(([name, empty]) => {
      const posted = formData.get(name);
      if (typeof empty === "boolean") return [name, posted === "on"];
      return [name, typeof posted === "string" ? posted : ""];
    }),
  );
}

/** A huge post is not sent back whole. */
function capped(values: Values, fields: Record<string, { maxLength?: number }>): Values {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      typeof value === "string" ? value.slice(0, fields[name]?.maxLength ?? 1_000) : value,
    ]),
  );
}

function firstErrors(error: z.core.$ZodError): FieldErrors<Values> {
  const { fieldErrors } = z.flattenError(error);
  return Object.fromEntries(
    Object.entries(fieldErrors).map(([name, messages]) => [name, (messages as string[])[0]]),
  ) as FieldErrors<Values>;
}

function pick(lead: Record<string, unknown>, keys: readonly string[]) {
  return Object.fromEntries(keys.map((key) => [key, lead[key]]));
}

type Schema = Awaited<ReturnType<FormDefinition["schema"]>>;
const schemas = new Map<string, Schema>();

/** Built once per form and phone policy: the policy is read per request. */
async function schemaOf(definition: FormDefinition, env: ServerEnv) {
  const policy = phonePolicyOf(env);
  const key = `${definition.name} ${JSON.stringify(policy)}`;
  let schema = schemas.get(key);
  if (!schema) schemas.set(key, (schema = await definition.schema(policy)));
  return schema;
}

/** Only a failure that proves nothing was processed gives the address's point back: after a timeout or a 5xx the workflow may have texted already. */
function refusedUnprocessed(delivery: { reason?: string; status?: number }) {
  const { reason, status = 0 } = delivery;
  if (reason === "unrecorded") return true;
  return reason === "status" && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

type Log = (level: "info" | "warn" | "error", outcome: string, facts?: object) => void;
type FormAnswer = (status: FormState<Values>["status"], extra?: Partial<FormState<Values>>) => FormState<Values>;
type Post = { definition: FormDefinition; formData: FormData; values: Values; answer: FormAnswer; log: Log };

async function check({ definition, formData, values, answer, log }: Post, env: ServerEnv) {
  // A bot is told it succeeded, so it learns nothing; nothing is sent.
  if (formData.get(honeypotName)) {
    log("warn", "honeypot");
    return { answer: answer("success") };
  }
  const parsed = (await schemaOf(definition, env)).safeParse(values);
  if (!parsed.success) {
    const errors = firstErrors(parsed.error);
    log("info", "invalid", { fields: Object.keys(errors) });
    return { answer: answer("invalid", { errors }) };
  }
  const lead = parsed.data as Record<string, unknown>;
  const started = performance.now();
  const { phone, email } = definition.limits;
  const request = await headers();
  const address = clientAddress(request, env.TRUSTED_PROXY_HOPS);
  const limits = await checkLimits(
    {
      formName: definition.name as FormName,
      address: addressKey(address),
      phone: phone ? String(lead[phone]) : undefined,
      email: email ? String(lead[email]) : undefined,
    },
    env,
  );
  if (!limits.ok) {
    log("warn", "rate_limited", { limiter: limits.limiter, retryAfterSeconds: limits.retryAfterSeconds });
    return { answer: answer("rate_limited", { retryAfterSeconds: limits.retryAfterSeconds }) };
  }
  return { lead, started, request, address, limits };
}

type Checked = Exclude<Awaited<ReturnType<typeof check>>, { answer: unknown }>;

async function deliver({ definition, formData, answer, log }: Post, checked: Checked, env: ServerEnv) {
  const { lead, started, request, address, limits } = checked;
  const payload = pick(lead, definition.payload ?? Object.keys(definition.emptyValues));
  const consent =
    definition.consent &&
    consentEvidence(
      { text: consentTextOf(definition), page: pageOf(definition) },
      { phone: String(lead[definition.consent.phone]), ip: address, formData, headers: request },
    );
  const form = definition.name as FormName;
  const touch = touchOf(new URLSearchParams((await cookies()).get(TOUCH_COOKIE)?.value));
  const { ok, ...facts } = await submitLead({ form, payload, env, started, consent, touch });
  // Where a host freezes a function once it answers (Vercel), after() keeps the alerts running.
  if (env.ALERT_WEBHOOK_URL) after(alertsSettled);
  if (!ok && refusedUnprocessed(facts)) await limits.releaseAddress();
  log(ok ? "info" : "error", !ok ? "failed" : facts.via === "webhook" ? "delivered" : facts.via, facts);
  // Every kept sign-up gets the one answer, in about the time a delivery takes: nothing tells a stranger that a
  // number is on the list already or once replied STOP.
  const elapsed = performance.now() - started;
  if (ok && facts.via === "webhook") noteDelivered(form, elapsed);
  if (ok && (facts.via === "repeat" || facts.via === "awaiting_start" || facts.via === "budget"))
    await paceLikeDelivery(form, elapsed, env.WEBHOOK_DEADLINE_MS);
  return answer(ok ? "success" : "failed");
}

/** The log names fields, statuses and limiters, never what the visitor typed. */
export async function submitForm<Name extends string>(
  formName: Name,
  formData: FormData,
): Promise<FormState<ValuesOf<Name>>> {
  if (!isFormName(formName)) {
    logEvent("warn", { event: "submission", outcome: "unknown_form" });
    return { status: "failed", id: randomUUID(), values: {}, errors: {} } as FormState<ValuesOf<Name>>;
  }
  const definition: FormDefinition = forms[formName];
  const values = readValues(formData, definition.emptyValues);
  const answer: FormAnswer = (status, extra = {}) => ({
    status,
    id: randomUUID(),
    values: isKept(status) ? definition.emptyValues : capped(values, definition.fields),
    errors: {},
    ...extra,
  });
  const log: Log = (level, outcome, facts = {}) =>
    logEvent(level, { event: "submission", form: formName, outcome, ...facts });
  const post = { definition, formData, values, answer, log };
  try {
    const env = readEnv();
    const checked = await check(post, env);
    return ("answer" in checked ? checked.answer : await deliver(post, checked, env)) as FormState<ValuesOf<Name>>;
  } catch (error) {
    log("error", "error", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return answer("failed") as FormState<ValuesOf<Name>>;
  }
}
