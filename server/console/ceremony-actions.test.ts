import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { activityPage } from "@/server/operators/activity-store";
import { insertSession, listPasskeys, sessionOperator } from "@/server/operators/operator-store";
import { addOperator, commandActor, issueLink } from "@/server/operators/operators";
import { SoftAuthenticator } from "@/tests/support/soft-authenticator";
import { whereLeads } from "@/tests/support/navigation";
import { cookieJar as jar, pinRequestHeaders } from "@/tests/support/request-headers";
import { cookieOf } from "./cookie";
import {
  confirmAddPasskey,
  finishAddPasskey,
  finishEnrolment,
  finishSetup,
  finishSignIn,
  signOut,
  startAddPasskey,
  startEnrolment,
  startSetup,
  startSignIn,
} from "./ceremony-actions";

// The unit tests' site: http://localhost:3000 (site-settings), a passkey's origin.
const origin = "http://localhost:3000";
let counter = 0;

/** The address this test's requests come from, one of its own: the limits count per address. */
let forwardedFor = "";
function moveToNewAddress() {
  forwardedFor = `10.${[...randomBytes(3)].join(".")}`;
  pinRequestHeaders({ "x-forwarded-for": forwardedFor });
}

beforeEach(() => {
  moveToNewAddress();
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

/** An operator signed in in this browser with the passkey `own` holds: their session's cookie set. */
async function signedIn() {
  const { store, operator, authenticator: own } = await enrolledThroughActions();
  jar.set(cookieOf().name, await insertSession(store, { operatorId: operator.id }));
  return { store, operator, own };
}

/** The add ceremony's start and the own passkey's confirmation, as the passkeys page runs them: the new passkey's options. */
async function confirmedAdd(own: SoftAuthenticator) {
  const asked = await startAddPasskey();
  if (!asked.ok) throw new Error(asked.message);
  const confirmed = await confirmAddPasskey(own.signIn(asked.value, origin));
  if (!confirmed.ok) throw new Error(confirmed.message);
  return confirmed.value;
}

describe("adding a passkey from the console", () => {
  it("asks the operator's own passkey first, then registers the new device's, and says where to go next", async () => {
    const { store, operator, own } = await signedIn();
    const authenticator = new SoftAuthenticator();
    const asked = await startAddPasskey();
    if (!asked.ok) throw new Error(asked.message);
    expect(asked.value).toMatchObject({ userVerification: "required", allowCredentials: [{ id: own.id }] });
    const started = await confirmAddPasskey(own.signIn(asked.value, origin));
    if (!started.ok) throw new Error(started.message);
    expect(started.value.user.name).toBe(operator.email);
    expect(jar.has(cookieOf("ceremony").name)).toBe(true);

    const finished = await finishAddPasskey(authenticator.register(started.value, origin));
    expect(finished).toStrictEqual({ ok: true, value: "/console/passkeys?done=added" });
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);
    expect((await listPasskeys(store, { operatorId: operator.id })).map(({ id }) => id)).toStrictEqual([
      own.id,
      authenticator.id,
    ]);
    const [line] = await activityPage(store, { limit: 1 });
    expect(line).toMatchObject({ actor: operator.email, via: "console", action: "passkey added" });
  });

  it("adds nothing on a session alone: the registration step without the confirmation, or after a forged one, is refused", async () => {
    const { store, operator, own } = await signedIn();
    const stranger = new SoftAuthenticator();
    // The confirmation's ceremony answered as if it were the registration's.
    const asked = await startAddPasskey();
    if (!asked.ok) throw new Error(asked.message);
    expect(
      await finishAddPasskey(stranger.register({ ...fakeOptions(), challenge: asked.value.challenge }, origin)),
    ).toStrictEqual({
      ok: false,
      message: "This sign-in or enrolment took too long or was already answered. Start again.",
    });
    // Confirmed by a key that is not the operator's, under their credential id.
    const again = await startAddPasskey();
    if (!again.ok) throw new Error(again.message);
    const forged = { ...stranger.signIn(again.value, origin), id: own.id, rawId: own.id };
    expect(await confirmAddPasskey(forged)).toStrictEqual({
      ok: false,
      message: "That passkey did not sign you in. Use a passkey registered for this console.",
    });
    expect(JSON.parse(String(vi.mocked(console.warn).mock.calls.at(-1)![0]))).toMatchObject({
      event: "console_ceremony_refused",
      ceremony: "add",
    });
    expect((await listPasskeys(store, { operatorId: operator.id })).map(({ id }) => id)).toStrictEqual([own.id]);
    // Its twin: confirmed by the own passkey, the same stranger's authenticator is registered.
    expect(await finishAddPasskey(stranger.register(await confirmedAdd(own), origin))).toMatchObject({ ok: true });
    expect(await listPasskeys(store, { operatorId: operator.id })).toHaveLength(2);
  });

  it("refuses, in words, a browser signed in as no one, a ceremony it did not start, and an answer it cannot read", async () => {
    expect(await startAddPasskey()).toStrictEqual({
      ok: false,
      message: "Your session has ended. Sign in again, then add the passkey.",
    });
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);

    const { store, operator, own } = await signedIn();
    // No ceremony started in this browser.
    expect(await finishAddPasskey(new SoftAuthenticator().register(fakeOptions(), origin))).toStrictEqual({
      ok: false,
      message: "This sign-in or enrolment took too long or was already answered. Start again.",
    });
    await confirmedAdd(own);
    expect(await finishAddPasskey({ id: "x", type: "not-a-credential" })).toStrictEqual({
      ok: false,
      message: "The passkey's answer could not be read. Start again.",
    });
    // The session ends between the start and the answer: refused, though the ceremony was this browser's.
    const again = await confirmedAdd(own);
    jar.delete(cookieOf().name);
    expect(await finishAddPasskey(new SoftAuthenticator().register(again, origin))).toMatchObject({
      ok: false,
      message: "Your session has ended. Sign in again, then add the passkey.",
    });
    expect((await listPasskeys(store, { operatorId: operator.id })).map(({ id }) => id)).toStrictEqual([own.id]);
    // Each refusal logged under its ceremony, with nothing of the operator's or the browser's.
    const logged = vi.mocked(console.warn).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged.map(({ event, ceremony }) => `${event} ${ceremony}`)).toStrictEqual(
      Array(4).fill("console_ceremony_refused add"),
    );
    expect(JSON.stringify(logged)).not.toContain(operator.email);
  });
});

describe("signing in from one address", () => {
  it("refuses the 21st start in 10 minutes in words, logged without the address; another address goes on", async () => {
    const answers = [];
    for (let attempt = 0; attempt < 21; attempt += 1) answers.push(await startSignIn());
    expect(answers.slice(0, 20).every((answer) => answer.ok)).toBe(true);
    expect(answers[20]).toStrictEqual({ ok: false, message: "Too many attempts. Try again in 10 minutes." });
    const logged = vi.mocked(console.warn).mock.calls.map((call) => String(call[0]));
    expect(logged.map((line) => JSON.parse(line).event)).toStrictEqual(["console_rate_limited"]);
    expect(logged.join("")).not.toContain(forwardedFor);
    moveToNewAddress();
    expect(await startSignIn()).toMatchObject({ ok: true });
  });
});

/** The token an enrolment link carries, its last path segment. */
const tokenOf = (url: string) => new URL(url).pathname.split("/").at(-1)!;
const sessionCookie = () => jar.get(cookieOf().name);

/** An operator enrolled from their link through the actions, as the enrolment page runs them. */
async function enrolledThroughActions(role: "owner" | "viewer" = "viewer") {
  const store = await database(readEnv());
  counter += 1;
  const email = `enrols-${counter}-${Date.now()}@sous.example`;
  const { operator, link } = await addOperator(store, { email, role, by: commandActor });
  const authenticator = new SoftAuthenticator();
  const started = await startEnrolment(tokenOf(link.url));
  if (!started.ok) throw new Error(started.message);
  expect(started.value.user.name).toBe(email);
  expect(jar.has(cookieOf("ceremony").name)).toBe(true);
  expect(await finishEnrolment(authenticator.register(started.value, origin))).toStrictEqual({
    ok: true,
    value: "/console",
  });
  return { store, operator, authenticator, link };
}

/** Signs in with a passkey through the actions, as the sign-in page runs them. */
async function signInThroughActions(authenticator: SoftAuthenticator, next: unknown) {
  const started = await startSignIn();
  if (!started.ok) throw new Error(started.message);
  return finishSignIn(authenticator.signIn(started.value, origin), next);
}

describe("enrolling, signing in and out through the console's actions", () => {
  it("enrols from the link with a session at once, signs in again with a new session to the page asked for, and signs out", async () => {
    const { store, operator, authenticator, link } = await enrolledThroughActions();
    const enrolled = sessionCookie();
    expect((await sessionOperator(store, enrolled!))?.email).toBe(operator.email);
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);
    // The link was used: a second start on it is refused in words.
    expect(await startEnrolment(tokenOf(link.url))).toMatchObject({
      ok: false,
      message: expect.stringContaining("This enrolment link is not valid"),
    });

    jar.clear();
    expect(await signInThroughActions(authenticator, "/console/waitlist?filter=revoked")).toStrictEqual({
      ok: true,
      value: "/console/waitlist?filter=revoked",
    });
    const signedInAgain = sessionCookie();
    expect(signedInAgain).toBeDefined();
    expect(signedInAgain).not.toBe(enrolled);
    expect((await sessionOperator(store, signedInAgain!))?.id).toBe(operator.id);
    // A `next` that leaves the console, or is no path at all, leads to the console's start.
    for (const next of ["https://elsewhere.example/console", "//elsewhere.example", 42, undefined])
      expect(await signInThroughActions(authenticator, next)).toStrictEqual({ ok: true, value: "/console" });

    const before = sessionCookie()!;
    expect(await whereLeads(signOut())).toBe("/console/sign-in?signed-out=1");
    expect(sessionCookie()).toBeUndefined();
    expect(await sessionOperator(store, before)).toBeUndefined();
    // The session of the enrolment, in another browser, stays.
    expect((await sessionOperator(store, enrolled!))?.id).toBe(operator.id);
    const actions = (await activityPage(store, { limit: 20 }))
      .filter((line) => line.actor === operator.email)
      .map((line) => line.action);
    expect(actions).toContain("enrolled");
    expect(actions).toContain("sign-in");
    // Signing out with no session does nothing but lead to the sign-in page.
    expect(await whereLeads(signOut())).toBe("/console/sign-in?signed-out=1");
  });

  it("refuses a sign-in with no ceremony started, an answer it cannot read, and a passkey no operator has, each in words and with no session", async () => {
    const { authenticator } = await enrolledThroughActions();
    jar.clear();
    expect(
      await finishSignIn(authenticator.signIn({ challenge: "AAAA", rpId: "localhost" }, origin), "/console"),
    ).toStrictEqual({
      ok: false,
      message: "This sign-in or enrolment took too long or was already answered. Start again.",
    });
    const started = await startSignIn();
    if (!started.ok) throw new Error(started.message);
    expect(await finishSignIn({ id: "x".repeat(2_000), rawId: "x", type: "public-key" }, "/console")).toStrictEqual({
      ok: false,
      message: "The passkey's answer could not be read. Start again.",
    });
    // The ceremony was read once: answering it again is refused as gone.
    expect(await finishSignIn(authenticator.signIn(started.value, origin), "/console")).toMatchObject({ ok: false });
    expect(await signInThroughActions(new SoftAuthenticator(), "/console")).toStrictEqual({
      ok: false,
      message: "That passkey did not sign you in. Use a passkey registered for this console.",
    });
    // An answer far past any authenticator's size is refused unread.
    const again = await startSignIn();
    if (!again.ok) throw new Error(again.message);
    const huge = { ...authenticator.signIn(again.value, origin), padding: "x".repeat(70_000) };
    expect(await finishSignIn(huge, "/console")).toStrictEqual({
      ok: false,
      message: "The passkey's answer could not be read. Start again.",
    });
    expect(sessionCookie()).toBeUndefined();
  });

  it("reads an answer of 64 KiB as its JSON counts it, and refuses it unread one character past", async () => {
    const { authenticator } = await enrolledThroughActions();
    jar.clear();
    /** The passkey's answer, padded to `size` characters of JSON. */
    const answerOf = (options: Parameters<SoftAuthenticator["signIn"]>[0], size: number) => {
      const answer = { ...authenticator.signIn(options, origin), padding: "" };
      return { ...answer, padding: "x".repeat(size - JSON.stringify(answer).length) };
    };
    const first = await startSignIn();
    if (!first.ok) throw new Error(first.message);
    const past = answerOf(first.value, 64 * 1024 + 1);
    expect(JSON.stringify(past)).toHaveLength(65_537);
    expect(await finishSignIn(past, "/console")).toStrictEqual({
      ok: false,
      message: "The passkey's answer could not be read. Start again.",
    });
    const second = await startSignIn();
    if (!second.ok) throw new Error(second.message);
    expect(await finishSignIn(answerOf(second.value, 64 * 1024), "/console")).toStrictEqual({
      ok: true,
      value: "/console",
    });
    expect(sessionCookie()).toBeDefined();
  });

  it("counts attempts per operator: after the enrolment, the 10th sign-in in 10 minutes is refused in words, from any address", async () => {
    const { authenticator } = await enrolledThroughActions();
    const answers = [];
    // The enrolment's start was the operator's first attempt of the ten.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      moveToNewAddress();
      answers.push(await signInThroughActions(authenticator, "/console"));
    }
    expect(answers.slice(0, 9).every((answer) => answer.ok)).toBe(true);
    expect(answers[9]).toStrictEqual({ ok: false, message: "Too many attempts. Try again in 10 minutes." });
  });

  it("counts nothing against an operator for answers their passkey did not sign: after 20 forged finishes naming it, they still sign in", async () => {
    const { authenticator } = await enrolledThroughActions();
    const forger = new SoftAuthenticator();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      moveToNewAddress();
      const started = await startSignIn();
      if (!started.ok) throw new Error(started.message);
      // The challenge is real, the credential id the operator's: only the signature is another key's.
      const forged = { ...forger.signIn(started.value, origin), id: authenticator.id, rawId: authenticator.id };
      expect(await finishSignIn(forged, "/console")).toStrictEqual({
        ok: false,
        message: "That passkey did not sign you in. Use a passkey registered for this console.",
      });
    }
    moveToNewAddress();
    expect(await signInThroughActions(authenticator, "/console")).toStrictEqual({ ok: true, value: "/console" });
  });

  it("lists none of an operator's passkeys to whoever holds an enrolment link", async () => {
    const { store, operator } = await enrolledThroughActions();
    const { link } = await issueLink(store, { email: operator.email, by: commandActor });
    const started = await startEnrolment(tokenOf(link.url));
    if (!started.ok) throw new Error(started.message);
    expect(started.value.excludeCredentials).toStrictEqual([]);
  });

  it("counts enrolment starts per operator: the 11th on one link is refused in words, from any address", async () => {
    const store = await database(readEnv());
    const { link } = await addOperator(store, {
      email: `starts-${Date.now()}@sous.example`,
      role: "viewer",
      by: commandActor,
    });
    const answers = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      moveToNewAddress();
      answers.push(await startEnrolment(tokenOf(link.url)));
    }
    expect(answers.slice(0, 10).every((answer) => answer.ok)).toBe(true);
    expect(answers[10]).toStrictEqual({ ok: false, message: "Too many attempts. Try again in 10 minutes." });
  });

  it("answers a database it cannot reach in general words, and logs the ceremony without the operator's details", async () => {
    vi.stubEnv("DATABASE_URL", "postgres://sous:sous@127.0.0.1:9/sous");
    expect(await startSignIn()).toStrictEqual({
      ok: false,
      message: "The console could not answer just now. Try again in a minute.",
    });
    const logged = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged).toMatchObject([{ event: "console_ceremony_failed", ceremony: "sign-in" }]);
    expect(JSON.stringify(logged)).not.toContain(forwardedFor);
  });
});

describe("setting up the first owner on the setup token", () => {
  const token = "t".repeat(40);

  it("refuses a wrong token, then enrols the first owner, signed in, and is closed to a second setup", async () => {
    vi.stubEnv("CONSOLE_SETUP_TOKEN", token);
    const email = "first-owner@sous.example";
    expect(await startSetup("t".repeat(39), email)).toStrictEqual({
      ok: false,
      message: "That is not the setup token.",
    });

    const authenticator = new SoftAuthenticator();
    const started = await startSetup(token, email);
    if (!started.ok) throw new Error(started.message);
    expect(started.value.user.name).toBe(email);
    // The token is checked again with the answer.
    const answer = authenticator.register(started.value, origin);
    expect(await finishSetup(answer, "wrong", email)).toStrictEqual({
      ok: false,
      message: "That is not the setup token.",
    });
    const again = await startSetup(token, email);
    if (!again.ok) throw new Error(again.message);
    expect(await finishSetup(authenticator.register(again.value, origin), token, email)).toStrictEqual({
      ok: true,
      value: "/console",
    });
    const store = await database(readEnv());
    const owner = await sessionOperator(store, sessionCookie()!);
    expect(owner).toMatchObject({ email, role: "owner" });

    // Closed for good: every step answers as an unknown page, the right token and a wrong one alike, and counts nothing.
    const closed = { ok: false, message: "Page not found." };
    for (let attempt = 0; attempt < 25; attempt += 1)
      for (const typed of [token, "t".repeat(39)]) {
        expect(await startSetup(typed, "second@sous.example")).toStrictEqual(closed);
        expect(await finishSetup(authenticator.register(again.value, origin), typed, email)).toStrictEqual(closed);
      }
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);
    // Each logged as a refused setup, nothing of what it carried.
    const refusals = vi
      .mocked(console.warn)
      .mock.calls.map((call) => JSON.parse(String(call[0])))
      .filter(({ event }) => event === "console_ceremony_refused");
    expect(refusals.slice(-4).map(({ ceremony }) => ceremony)).toStrictEqual(Array(4).fill("setup"));
    expect(JSON.stringify(refusals)).not.toContain("second@sous.example");
    expect(await startSignIn()).toMatchObject({ ok: true });
  });

  it("counts every try of the token, at either step, against the address: the 21st in 10 minutes is refused in words", async () => {
    vi.stubEnv("CONSOLE_SETUP_TOKEN", token);
    const store = await database(readEnv());
    await store.db.deleteFrom("operators").where("role", "=", "owner").execute();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(await startSetup("t".repeat(39), "first@sous.example")).toStrictEqual({
        ok: false,
        message: "That is not the setup token.",
      });
      expect(
        await finishSetup(new SoftAuthenticator().register(fakeOptions(), origin), "t".repeat(39), "x@sous.example"),
      ).toMatchObject({ ok: false });
    }
    expect(await startSetup(token, "first@sous.example")).toStrictEqual({
      ok: false,
      message: "Too many attempts. Try again in 10 minutes.",
    });
    moveToNewAddress();
    expect(await startSetup(token, "first@sous.example")).toMatchObject({ ok: true });
  });
});

/** Options no ceremony of ours made: what a browser answering an old or forged prompt sends. */
const fakeOptions = () => ({ challenge: "AAAA", rp: { id: "localhost" }, user: { id: "dXNlcg" } });
