"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import {
  addPasskeyOptions,
  CeremonyError,
  completeAddPasskey,
  confirmationOptions,
  completeEnrolment,
  completeSetup,
  completeSignIn,
  enrolmentOptions,
  setupOpen,
  setupOptions,
  signInOptions,
} from "@/server/operators/passkeys";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { CHALLENGE_TTL_MS } from "@/server/operators/operator-store";
import { addressKey, clientAddress } from "@/server/forms/client-address";
import type { consoleLimits } from "@/server/forms/limits";
import { consumeConsoleAttempt } from "@/server/forms/limits";
import { consolePath, cookieOf, isSessionToken } from "./cookie";
import { endSession, setSessionCookie, signedIn, thisBrowser } from "./session";

// The passkey ceremonies' server side: a start (options, the ceremony's id in an HttpOnly cookie of 5 minutes) and a
// finish (the answer verified, a session cookie). Every answer is a plain object: options, or what went wrong.

export type CeremonyAnswer<T = undefined> = { ok: true; value: T } | { ok: false; message: string };
type Ceremony = "sign-in" | "enrol" | "setup" | "add";

const unavailable = "The console could not answer just now. Try again in a minute.";

/** Anything else is refused unread. */
const answerShape = z
  .object({ id: z.string().max(1_400), rawId: z.string().max(1_400), type: z.literal("public-key") })
  .loose();
const ANSWER_BYTES = 64 * 1024;

function parsedAnswer<T>(value: unknown): T | undefined {
  if (JSON.stringify(value ?? null).length > ANSWER_BYTES) return undefined;
  return answerShape.safeParse(value).success ? (value as T) : undefined;
}

class Throttled extends CeremonyError {}

async function limited(kind: keyof typeof consoleLimits, value: string) {
  const counted = await consumeConsoleAttempt(kind, value, readEnv());
  if (!counted.ok)
    throw new Throttled(
      `Too many attempts. Try again in ${Math.max(1, Math.ceil(counted.retryAfterSeconds / 60))} minutes.`,
    );
}

const requestAddress = async () => addressKey(clientAddress(await headers(), readEnv().TRUSTED_PROXY_HOPS));

/** A refusal's words for the operator; anything else logged and answered in general. */
async function step<T>(ceremony: Ceremony, work: () => Promise<T>): Promise<CeremonyAnswer<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof Throttled) {
      logEvent("warn", { event: "console_rate_limited", ceremony });
      return { ok: false, message: error.message };
    }
    if (error instanceof CeremonyError) {
      logEvent("warn", { event: "console_ceremony_refused", ceremony });
      return { ok: false, message: error.message };
    }
    logEvent("error", { event: "console_ceremony_failed", ceremony, message: messageOf(error) });
    return { ok: false, message: unavailable };
  }
}

const store = () => database(readEnv());

async function keepCeremony(id: string) {
  const { name, attributes } = cookieOf("ceremony");
  (await cookies()).set(name, id, { ...attributes, maxAge: CHALLENGE_TTL_MS / 1000 });
}

/** Read once: its cookie is cleared whatever the answer. */
async function takeCeremonyId() {
  const jar = await cookies();
  const { name, attributes } = cookieOf("ceremony");
  const id = jar.get(name)?.value;
  jar.set(name, "", { ...attributes, maxAge: 0 });
  return isSessionToken(id) ? id : undefined;
}

const gone = () => {
  throw new CeremonyError("This sign-in or enrolment took too long or was already answered. Start again.");
};
const malformed = () => {
  throw new CeremonyError("The passkey's answer could not be read. Start again.");
};

export async function startSignIn() {
  return step("sign-in", async () => {
    await limited("address", await requestAddress());
    const { options, ceremony } = await signInOptions(await store());
    await keepCeremony(ceremony);
    return options;
  });
}

export async function finishSignIn(answer: unknown, next: unknown) {
  return step("sign-in", async () => {
    const ceremony = (await takeCeremonyId()) ?? gone();
    const response = parsedAnswer<AuthenticationResponseJSON>(answer) ?? malformed();
    // Counted against the operator only once the passkey signed: a credential id alone locks no one out.
    const { session } = await completeSignIn(await store(), {
      ceremony,
      response,
      admit: (operatorId) => limited("operator", operatorId),
    });
    await setSessionCookie(session);
    return consolePath(typeof next === "string" ? next : undefined);
  });
}

export async function startEnrolment(token: string) {
  return step("enrol", async () => {
    await limited("address", await requestAddress());
    const { options, ceremony, operator } = await enrolmentOptions(await store(), {
      token: String(token).slice(0, 100),
    });
    await limited("operator", operator.id);
    await keepCeremony(ceremony);
    return options;
  });
}

export async function finishEnrolment(answer: unknown) {
  return step("enrol", async () => {
    const ceremony = (await takeCeremonyId()) ?? gone();
    const response = parsedAnswer<RegistrationResponseJSON>(answer) ?? malformed();
    const { session } = await completeEnrolment(await store(), { ceremony, response, device: await thisBrowser() });
    await setSessionCookie(session);
    return "/console";
  });
}

const setupFields = (token: unknown, email: unknown) => ({
  token: String(token ?? "").slice(0, 200),
  email: String(email ?? "").slice(0, 320),
});

const setupGone = "Page not found.";

/** Nothing is read once setup is closed, so a token can be told right from wrong only while it is open. */
async function setupStep<T>(work: () => Promise<T>) {
  return step("setup", async () => {
    if (!(await setupOpen(await store(), readEnv()))) throw new CeremonyError(setupGone);
    await limited("address", await requestAddress());
    return work();
  });
}

export async function startSetup(token: string, email: string) {
  return setupStep(async () => {
    const { options, ceremony } = await setupOptions(await store(), setupFields(token, email));
    await keepCeremony(ceremony);
    return options;
  });
}

export async function finishSetup(answer: unknown, token: string, email: string) {
  return setupStep(async () => {
    const ceremony = (await takeCeremonyId()) ?? gone();
    const response = parsedAnswer<RegistrationResponseJSON>(answer) ?? malformed();
    const { session } = await completeSetup(await store(), {
      ceremony,
      response,
      ...setupFields(token, email),
      device: await thisBrowser(),
    });
    await setSessionCookie(session);
    return "/console";
  });
}

async function signedInOrEnded() {
  const found = await signedIn();
  if (!found) throw new CeremonyError("Your session has ended. Sign in again, then add the passkey.");
  return found;
}

/** A new device: first the operator's own passkey, asked again. */
export async function startAddPasskey() {
  return step("add", async () => {
    const signed = await signedInOrEnded();
    await limited("operator", signed.operator.id);
    const { options, ceremony } = await confirmationOptions(signed);
    await keepCeremony(ceremony);
    return options;
  });
}

export async function confirmAddPasskey(answer: unknown) {
  return step("add", async () => {
    const signed = await signedInOrEnded();
    const ceremony = (await takeCeremonyId()) ?? gone();
    const response = parsedAnswer<AuthenticationResponseJSON>(answer) ?? malformed();
    const { options, ceremony: next } = await addPasskeyOptions(signed, { ceremony, response });
    await keepCeremony(next);
    return options;
  });
}

export async function finishAddPasskey(answer: unknown) {
  return step("add", async () => {
    const signed = await signedInOrEnded();
    const ceremony = (await takeCeremonyId()) ?? gone();
    const response = parsedAnswer<RegistrationResponseJSON>(answer) ?? malformed();
    await completeAddPasskey(signed, { ceremony, response, device: await thisBrowser() });
    return "/console/passkeys?done=added";
  });
}

export async function signOut() {
  await endSession();
  redirect("/console/sign-in?signed-out=1");
}
