import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { activityPage } from "@/server/operators/activity-store";
import { insertSession, listPasskeys } from "@/server/operators/operator-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { SoftAuthenticator } from "@/tests/support/soft-authenticator";
import { cookieOf } from "./cookie";

// The browser's cookies and headers as Next's request scope gives them to a server action.
const jar = new Map<string, string>();
let forwardedFor = "203.0.113.9";
vi.mock("next/headers", () => ({
  cookies: async () => ({
    get: (name: string) => (jar.has(name) ? { name, value: jar.get(name)! } : undefined),
    set: (name: string, value: string, { maxAge }: { maxAge?: number } = {}) =>
      maxAge === 0 ? jar.delete(name) : jar.set(name, value),
  }),
  headers: async () => new Headers({ "x-forwarded-for": forwardedFor }),
}));

const { finishAddPasskey, startAddPasskey, startSignIn } = await import("./ceremony-actions");

// The unit tests' site: http://localhost:3000 (site-settings), a passkey's origin.
const origin = "http://localhost:3000";
let counter = 0;

beforeEach(() => {
  jar.clear();
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

/** An operator signed in in this browser: their session's cookie set. */
async function signedIn() {
  const store = await database(readEnv());
  counter += 1;
  const email = `adds-${counter}-${Date.now()}@sous.example`;
  const { operator } = await addOperator(store, { email, role: "viewer", by: commandActor });
  jar.set(cookieOf().name, await insertSession(store, { operatorId: operator.id }));
  return { store, operator };
}

describe("adding a passkey from the console", () => {
  it("registers the new device's passkey for the operator signed in, and says where to go next", async () => {
    const { store, operator } = await signedIn();
    const authenticator = new SoftAuthenticator();
    const started = await startAddPasskey();
    if (!started.ok) throw new Error(started.message);
    expect(started.value.user.name).toBe(operator.email);
    expect(jar.has(cookieOf("ceremony").name)).toBe(true);

    const finished = await finishAddPasskey(authenticator.register(started.value, origin));
    expect(finished).toStrictEqual({ ok: true, value: "/console/passkeys?done=added" });
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);
    expect(await listPasskeys(store, { operatorId: operator.id })).toMatchObject([{ id: authenticator.id }]);
    const [line] = await activityPage(store, { limit: 1 });
    expect(line).toMatchObject({ actor: operator.email, via: "console", action: "passkey added" });
  });

  it("refuses, in words, a browser signed in as no one, a ceremony it did not start, and an answer it cannot read", async () => {
    expect(await startAddPasskey()).toStrictEqual({
      ok: false,
      message: "Your session has ended. Sign in again, then add the passkey.",
    });
    expect(jar.has(cookieOf("ceremony").name)).toBe(false);

    const { store, operator } = await signedIn();
    // No ceremony started in this browser.
    expect(await finishAddPasskey(new SoftAuthenticator().register(fakeOptions(), origin))).toStrictEqual({
      ok: false,
      message: "This sign-in or enrolment took too long or was already answered. Start again.",
    });
    const started = await startAddPasskey();
    if (!started.ok) throw new Error(started.message);
    expect(await finishAddPasskey({ id: "x", type: "not-a-credential" })).toStrictEqual({
      ok: false,
      message: "The passkey's answer could not be read. Start again.",
    });
    // The session ends between the start and the answer: refused, though the ceremony was this browser's.
    const again = await startAddPasskey();
    if (!again.ok) throw new Error(again.message);
    jar.delete(cookieOf().name);
    expect(await finishAddPasskey(new SoftAuthenticator().register(again.value, origin))).toMatchObject({
      ok: false,
      message: "Your session has ended. Sign in again, then add the passkey.",
    });
    expect(await listPasskeys(store, { operatorId: operator.id })).toStrictEqual([]);
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
    // An address of this run alone: the limit's counts outlive a run of the suite.
    forwardedFor = `10.${[...randomBytes(3)].join(".")}`;
    const answers = [];
    for (let attempt = 0; attempt < 21; attempt += 1) answers.push(await startSignIn());
    expect(answers.slice(0, 20).every((answer) => answer.ok)).toBe(true);
    expect(answers[20]).toStrictEqual({ ok: false, message: "Too many attempts. Try again in 10 minutes." });
    const logged = vi.mocked(console.warn).mock.calls.map((call) => String(call[0]));
    expect(logged.map((line) => JSON.parse(line).event)).toStrictEqual(["console_rate_limited"]);
    expect(logged.join("")).not.toContain(forwardedFor);
    forwardedFor = `10.${[...randomBytes(3)].join(".")}`;
    expect(await startSignIn()).toMatchObject({ ok: true });
  });
});

/** Options no ceremony of ours made: what a browser answering an old or forged prompt sends. */
const fakeOptions = () => ({ challenge: "AAAA", rp: { id: "localhost" }, user: { id: "dXNlcg" } });
