"use client";

import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { useState, type FormEvent, type ReactNode } from "react";
import type { CeremonyAnswer } from "@/server/console/ceremony-actions";
import {
  confirmAddPasskey,
  finishAddPasskey,
  finishEnrolment,
  finishSetup,
  finishSignIn,
  startAddPasskey,
  startEnrolment,
  startSetup,
  startSignIn,
} from "@/server/console/ceremony-actions";

/**
 * The console's one piece of client code: the passkey ceremony, which only a browser's script can run (WebAuthn has no
 * form post). Its form names what it does; its server side is server/console/ceremony-actions.ts. Without JavaScript
 * the page says so in words (its <noscript>).
 */
type Props =
  | { ceremony: "sign-in"; next: string; children?: ReactNode }
  | { ceremony: "enrol"; token: string; children?: ReactNode }
  | { ceremony: "setup"; children?: ReactNode }
  | { ceremony: "add"; children?: ReactNode };

const labels = {
  "sign-in": "Sign in with a passkey",
  enrol: "Register a passkey",
  setup: "Set up with a passkey",
  add: "Add a passkey on this device",
};

/** A browser's refusal, in words: the operator cancelled, or the passkey is not for this site. */
function browserMessage(error: unknown, ceremony: Props["ceremony"]) {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || name === "AbortError")
    return "The passkey prompt was closed or timed out. Try again.";
  if (name === "InvalidStateError")
    return ceremony === "add"
      ? "This device already holds one of your passkeys. Add the new one from the other device."
      : "This device already holds a passkey for you here. Sign in instead.";
  return "Your browser could not use a passkey here. Try again, or another browser.";
}

export function PasskeyCeremony(props: Props) {
  const [message, setMessage] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function run<T>(answer: Promise<CeremonyAnswer<T>>) {
    const result = await answer;
    if (!result.ok) throw new Refused(result.message);
    return result.value;
  }

  const browserFailed = (error: unknown): never => {
    throw new Refused(browserMessage(error, props.ceremony));
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!browserSupportsWebAuthn()) return setMessage("This browser cannot use passkeys. Try another browser.");
    const fields = new FormData(event.currentTarget);
    const token = String(fields.get("token") ?? "");
    const email = String(fields.get("email") ?? "");
    setBusy(true);
    setMessage(undefined);
    try {
      let next: string;
      if (props.ceremony === "sign-in") {
        const optionsJSON = await run(startSignIn());
        const answer = await startAuthentication({ optionsJSON }).catch(browserFailed);
        next = await run(finishSignIn(answer, props.next));
      } else if (props.ceremony === "enrol") {
        const optionsJSON = await run(startEnrolment(props.token));
        const answer = await startRegistration({ optionsJSON }).catch(browserFailed);
        next = await run(finishEnrolment(answer));
      } else if (props.ceremony === "add") {
        const confirmation = await run(startAddPasskey());
        const confirmed = await startAuthentication({ optionsJSON: confirmation }).catch(browserFailed);
        const optionsJSON = await run(confirmAddPasskey(confirmed));
        const answer = await startRegistration({ optionsJSON }).catch(browserFailed);
        next = await run(finishAddPasskey(answer));
      } else {
        const optionsJSON = await run(startSetup(token, email));
        const answer = await startRegistration({ optionsJSON }).catch(browserFailed);
        next = await run(finishSetup(answer, token, email));
      }
      window.location.assign(next);
    } catch (error) {
      setMessage(error instanceof Refused ? error.message : "The console could not answer just now. Try again.");
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4" aria-describedby="ceremony-message">
      {props.children}
      <button
        type="submit"
        disabled={busy}
        className="rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:opacity-60"
      >
        {busy ? "Waiting for your passkey…" : labels[props.ceremony]}
      </button>
      <p id="ceremony-message" role="status" aria-live="polite" className="text-sm text-red-800">
        {message}
      </p>
    </form>
  );
}

class Refused extends Error {}
