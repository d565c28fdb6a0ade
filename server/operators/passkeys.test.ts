import { beforeEach, describe, expect, it, vi } from "vitest";

import { setupBothEngines } from "@/tests/support/both-engines";
import { consoleStores } from "@/tests/support/console-store";
import { SoftAuthenticator } from "@/tests/support/soft-authenticator";
import { activityPage } from "./activity-store";
import {
  labelSession,
  listOperators,
  listPasskeys,
  ownerExists,
  passkeysOf,
  sessionOperator,
  sessionsOf,
  type Operator,
  insertPasskey,
} from "./operator-store";
import type { Store } from "@/server/db/connect";
import { addOperator, commandActor, type SignedIn } from "./operators";
import {
  addPasskeyOptions,
  CeremonyError,
  confirmationOptions,
  completeAddPasskey,
  renameOwnPasskey,
  completeEnrolment,
  completeSetup,
  completeSignIn,
  endSessions,
  enrolmentOptions,
  removePasskey,
  relyingParty,
  setupOpen,
  setupOptions,
  setupTokenMatches,
  signInOptions,
  signOutSession,
} from "./passkeys";

/** As the console's guard hands an operator to a route. */
const signedIn = (store: Store, operator: Operator) => ({ store, operator }) as SignedIn;

const open = consoleStores(setupBothEngines());

// The console's address: a passkey belongs to its host.
const site = "https://sous.example";
const setupToken = "s".repeat(40);
const setupEnv = { CONSOLE_SETUP_TOKEN: setupToken };
beforeEach(() => {
  vi.stubEnv("SITE_URL", site);
  vi.stubEnv("CONSOLE_SETUP_TOKEN", setupToken);
});
const tokenOf = (url: string) => new URL(url).pathname.split("/").at(-1)!;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "accepted",
    (error: Error) => (error instanceof CeremonyError ? error.message : `not a refusal: ${error.stack}`),
  );

describe.each(["sqlite", "postgres"] as const)("passkeys on %s", (engine) => {
  async function enrolled(store: Awaited<ReturnType<typeof open>>, email: string, role: "owner" | "viewer" = "owner") {
    const { link } = await addOperator(store, { email, role, by: commandActor });
    const authenticator = new SoftAuthenticator();
    const { options, ceremony } = await enrolmentOptions(store, { token: tokenOf(link.url) });
    const done = await completeEnrolment(store, {
      device: "Chrome on macOS",
      ceremony,
      response: authenticator.register(options, site),
    });
    return { authenticator, done, link };
  }

  it("name a passkey by the device it was enrolled on, used at once; renamed by its operator alone, in one line", async () => {
    const store = await open(engine);
    const before = Date.now();
    const { done, authenticator } = await enrolled(store, "owner@sous.example");
    const other = await enrolled(store, "viewer@sous.example", "viewer");
    const [mine] = await listPasskeys(store, { operatorId: done.operator.id });
    expect(mine).toMatchObject({ id: authenticator.id, name: "Chrome on macOS" });
    expect(mine!.usedAt).toBeGreaterThanOrEqual(before);
    const owner = signedIn(store, done.operator);
    expect(await renameOwnPasskey(owner, authenticator.id, "  Work \n laptop ")).toBe(true);
    expect(await renameOwnPasskey(owner, authenticator.id, " ")).toBe(false);
    expect(await renameOwnPasskey(owner, authenticator.id, "x".repeat(61))).toBe(false);
    expect(await renameOwnPasskey(owner, other.authenticator.id, "Mine now")).toBe(false);
    expect(await renameOwnPasskey(signedIn(store, other.done.operator), other.authenticator.id, "x".repeat(60))).toBe(
      true,
    );
    expect((await listPasskeys(store)).map(({ name }) => name)).toStrictEqual(["Work laptop", "x".repeat(60)]);
  });

  it("enrol an operator from their link, sign them in, and sign them in again with the same passkey", async () => {
    const store = await open(engine);
    const { authenticator, done } = await enrolled(store, "owner@sous.example");
    expect(done.operator.email).toBe("owner@sous.example");
    expect((await sessionOperator(store, done.session))?.email).toBe("owner@sous.example");
    expect(await passkeysOf(store, done.operator.id)).toMatchObject([{ id: authenticator.id, counter: 0 }]);

    for (const round of [1, 2]) {
      const { options, ceremony } = await signInOptions(store);
      const signedIn = await completeSignIn(store, { ceremony, response: authenticator.signIn(options, site) });
      expect(signedIn.operator.email).toBe("owner@sous.example");
      // A new session each time.
      expect(signedIn.session).not.toBe(done.session);
      expect((await passkeysOf(store, done.operator.id))[0]!.counter).toBe(round);
    }
    expect((await activityPage(store, { limit: 3 })).map(({ action }) => action)).toStrictEqual([
      "sign-in",
      "sign-in",
      "enrolled",
    ]);
  });

  /** Signs in with this authenticator: the new session's token. */
  async function signInWith(store: Awaited<ReturnType<typeof open>>, authenticator: SoftAuthenticator) {
    const { options, ceremony } = await signInOptions(store);
    return (await completeSignIn(store, { ceremony, response: authenticator.signIn(options, site) })).session;
  }

  /** The add ceremony's options, once the operator's own passkey (`own`) confirmed it. */
  async function confirmedAdd(store: Awaited<ReturnType<typeof open>>, operator: Operator, own: SoftAuthenticator) {
    const asked = await confirmationOptions(signedIn(store, operator));
    return addPasskeyOptions(signedIn(store, operator), {
      ceremony: asked.ceremony,
      response: own.signIn(asked.options, site),
    });
  }

  /** A new device's passkey for `operator`, once `own` confirmed it: the new device's authenticator. */
  async function addedPasskey(store: Awaited<ReturnType<typeof open>>, operator: Operator, own: SoftAuthenticator) {
    const device = new SoftAuthenticator();
    const { options, ceremony } = await confirmedAdd(store, operator, own);
    await completeAddPasskey(signedIn(store, operator), {
      device: "Chrome on macOS",
      ceremony,
      response: device.register(options, site),
    });
    return device;
  }

  it("tell apart an operator's passkeys from the same browser by a number, another operator's of the same browser not", async () => {
    const store = await open(engine);
    const { authenticator, done } = await enrolled(store, "owner@sous.example");
    const viewer = await enrolled(store, "viewer@sous.example", "viewer");
    await addedPasskey(store, done.operator, authenticator);
    await addedPasskey(store, done.operator, authenticator);
    // Passkeys kept from before names stay unnamed, however many.
    for (const id of ["old-1", "old-2"])
      await insertPasskey(store, {
        passkey: { id, operatorId: viewer.done.operator.id, publicKey: "pk", counter: 0, transports: [] },
      });
    const unnamed = await listPasskeys(store, { operatorId: viewer.done.operator.id });
    expect(unnamed.filter(({ id }) => id.startsWith("old-")).map(({ name }) => name)).toStrictEqual([null, null]);
    for (const id of ["old-1", "old-2"]) await store.db.deleteFrom("operator_passkeys").where("id", "=", id).execute();
    expect((await listPasskeys(store)).map(({ email, name }) => `${email}: ${name}`)).toStrictEqual([
      "owner@sous.example: Chrome on macOS",
      "owner@sous.example: Chrome on macOS (2)",
      "owner@sous.example: Chrome on macOS (3)",
      "viewer@sous.example: Chrome on macOS",
    ]);
  });

  it("ask the operator's own passkey, user verified, before another is added: another's passkey, a forged answer, an unverified user, another's ceremony each refused", async () => {
    const store = await open(engine);
    const { authenticator: own, done } = await enrolled(store, "owner@sous.example");
    const { authenticator: helperKey, done: helper } = await enrolled(store, "viewer@sous.example", "viewer");
    const asked = await confirmationOptions(signedIn(store, done.operator));
    // Only the operator's own passkeys may answer, their user verified.
    expect(asked.options).toMatchObject({ userVerification: "required", allowCredentials: [{ id: own.id }] });
    const tries: Array<[string, () => Promise<unknown>]> = [
      ["another's passkey", async () => helperKey.signIn((await ask()).options, site)],
      [
        "a forged answer",
        async () => ({ ...new SoftAuthenticator().signIn((await ask()).options, site), id: own.id, rawId: own.id }),
      ],
      ["an unverified user", async () => own.signIn((await ask()).options, site, { flags: 0x01 })],
    ];
    let current = asked;
    async function ask() {
      current = await confirmationOptions(signedIn(store, done.operator));
      return current;
    }
    for (const [label, answer] of tries) {
      const response = (await answer()) as Parameters<typeof addPasskeyOptions>[1]["response"];
      expect(
        await refusal(addPasskeyOptions(signedIn(store, done.operator), { ceremony: current.ceremony, response })),
        label,
      ).toBe("That passkey did not sign you in. Use a passkey registered for this console.");
    }
    // The owner's ceremony answered in the viewer's session: refused.
    const owners = await ask();
    expect(
      await refusal(
        addPasskeyOptions(signedIn(store, helper.operator), {
          ceremony: owners.ceremony,
          response: helperKey.signIn(owners.options, site),
        }),
      ),
    ).toMatch(/^This sign-in or enrolment took too long/);
    // A sign-in's ceremony is no confirmation.
    const signIn = await signInOptions(store);
    expect(
      await refusal(
        addPasskeyOptions(signedIn(store, done.operator), {
          ceremony: signIn.ceremony,
          response: own.signIn(signIn.options, site),
        }),
      ),
    ).toMatch(/^This sign-in or enrolment took too long/);
    // Its twin: the own passkey, verified, gives the options.
    expect((await confirmedAdd(store, done.operator, own)).options.user.name).toBe("owner@sous.example");
    expect(await passkeysOf(store, done.operator.id)).toHaveLength(1);
  });

  it("ask nothing of an operator with no passkey: they sign in again first", async () => {
    const store = await open(engine);
    const { operator } = await addOperator(store, { email: "nokey@sous.example", role: "viewer", by: commandActor });
    expect(await refusal(confirmationOptions(signedIn(store, operator)))).toBe(
      "You have no passkey to confirm with. Sign in again with a passkey.",
    );
  });

  it("add a second passkey for the operator signed in, which then signs them in; another operator's ceremony and a passkey registered twice are refused", async () => {
    const store = await open(engine);
    const { authenticator: first, done } = await enrolled(store, "owner@sous.example");
    const { done: other } = await enrolled(store, "viewer@sous.example", "viewer");
    const second = new SoftAuthenticator();

    const { options, ceremony } = await confirmedAdd(store, done.operator, first);
    // The one they have is excluded: an authenticator holding it says so.
    expect(options.excludeCredentials?.map(({ id }) => id)).toStrictEqual([first.id]);
    // As every passkey of the console: discoverable (sign-in names no one first), the user verified, no attestation.
    expect(options).toMatchObject({
      attestation: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      user: { name: "owner@sous.example" },
    });
    // Started by the owner, answered in the viewer's session: refused, and the challenge is spent.
    expect(
      await refusal(
        completeAddPasskey(signedIn(store, other.operator), {
          device: "Chrome on macOS",
          ceremony,
          response: second.register(options, site),
        }),
      ),
    ).toMatch(/^This sign-in or enrolment took too long/);
    const again = await confirmedAdd(store, done.operator, first);
    const added = await completeAddPasskey(signedIn(store, done.operator), {
      device: "Safari on iPhone",
      ceremony: again.ceremony,
      response: second.register(again.options, site),
    });
    expect(added).toBe(second.id);
    expect((await passkeysOf(store, done.operator.id)).map(({ id }) => id)).toStrictEqual([first.id, second.id]);
    // Listed by the device each was registered on, the first used to confirm, the new one never used yet; one
    // operator's list holds theirs only.
    expect(await listPasskeys(store, { operatorId: done.operator.id })).toMatchObject([
      { id: first.id, email: "owner@sous.example", name: "Chrome on macOS", usedAt: expect.any(Number) },
      { id: second.id, email: "owner@sous.example", name: "Safari on iPhone", usedAt: null },
    ]);
    expect((await listPasskeys(store, { operatorId: other.operator.id })).map(({ email }) => email)).toStrictEqual([
      "viewer@sous.example",
    ]);
    expect(await listPasskeys(store)).toHaveLength(3);
    const before = Date.now();
    expect((await sessionOperator(store, await signInWith(store, second)))?.email).toBe("owner@sous.example");
    const used = (await listPasskeys(store, { operatorId: done.operator.id }))[1]!.usedAt!;
    expect(used).toBeGreaterThanOrEqual(before);
    expect(used).toBeLessThanOrEqual(Date.now());
    // The owner's first session goes on: adding a passkey opens none and ends none.
    expect((await sessionOperator(store, done.session))?.email).toBe("owner@sous.example");

    // The same authenticator's answer registered a second time: refused, nothing added.
    const twice = await confirmedAdd(store, done.operator, first);
    expect(
      await refusal(
        completeAddPasskey(signedIn(store, done.operator), {
          device: "Chrome on macOS",
          ceremony: twice.ceremony,
          response: second.register(twice.options, site),
        }),
      ),
    ).toBe("This passkey is registered already.");
    expect(await passkeysOf(store, done.operator.id)).toHaveLength(2);
    expect(
      (await activityPage(store, { limit: 2 })).map(({ actor, via, action }) => `${actor} ${via} ${action}`),
    ).toStrictEqual(["owner@sous.example console sign-in", "owner@sous.example console passkey added"]);
  });

  it("revoke a passkey: the sessions it opened end at once, the operator's others stay; the last owner's, and an unknown id, are refused and change nothing", async () => {
    const store = await open(engine);
    const { authenticator: laptop, done } = await enrolled(store, "owner@sous.example");
    const { authenticator: helperKey, done: helper } = await enrolled(store, "viewer@sous.example", "viewer");
    const phone = await addedPasskey(store, done.operator, laptop);
    const onPhone = await signInWith(store, phone);
    const onLaptop = await signInWith(store, laptop);
    const by = done.operator;

    expect(await removePasskey(signedIn(store, by), phone.id)).toMatchObject({
      removed: { id: phone.id, email: "owner@sous.example" },
    });
    expect(await sessionOperator(store, onPhone)).toBeUndefined();
    expect((await sessionOperator(store, onLaptop))?.email).toBe("owner@sous.example");
    expect((await sessionOperator(store, done.session))?.email).toBe("owner@sous.example");
    expect(await refusal(signInWith(store, phone))).toBe(
      "That passkey did not sign you in. Use a passkey registered for this console.",
    );
    const [removal] = await activityPage(store, { limit: 1 });
    expect(removal).toMatchObject({
      actor: "owner@sous.example",
      action: "passkey removed",
      subject: "owner@sous.example",
      rows: 1,
    });

    // The laptop's is the owner's last: the viewer's passkey does not count, an owner's alone manages the console.
    expect(await removePasskey(signedIn(store, by), laptop.id)).toStrictEqual({ refused: "last" });
    // An owner revokes anyone's: the viewer's laptop key, added and revoked again.
    const helperLaptop = await addedPasskey(store, helper.operator, helperKey);
    expect(await removePasskey(signedIn(store, by), helperLaptop.id)).toMatchObject({
      removed: { id: helperLaptop.id, email: "viewer@sous.example" },
    });
    expect((await activityPage(store, { limit: 1 }))[0]).toMatchObject({
      actor: "owner@sous.example",
      via: "console",
      action: "passkey removed",
      subject: "viewer@sous.example",
    });
    // A viewer revokes their own passkeys only.
    expect(await removePasskey(signedIn(store, helper.operator), phone.id)).toStrictEqual({
      refused: "unknown",
    });
    expect(await removePasskey(signedIn(store, helper.operator), laptop.id)).toStrictEqual({
      refused: "unknown",
    });
    // A viewer's passkey may go, whoever's last it is: owners still sign in.
    expect(await removePasskey(signedIn(store, helper.operator), helperKey.id)).toMatchObject({
      removed: { id: helperKey.id },
    });
    expect(await sessionOperator(store, helper.session)).toBeUndefined();

    // The laptop's is now the only passkey any owner has.
    const before = await listPasskeys(store);
    expect(await removePasskey(signedIn(store, by), laptop.id)).toStrictEqual({ refused: "last" });
    expect(await removePasskey(signedIn(store, by), "no-such-passkey")).toStrictEqual({ refused: "unknown" });
    expect(await listPasskeys(store)).toStrictEqual(before);
    expect((await sessionOperator(store, onLaptop))?.email).toBe("owner@sous.example");
    expect((await activityPage(store, { limit: 1 }))[0]).toMatchObject({
      actor: "viewer@sous.example",
      action: "passkey removed",
      subject: "viewer@sous.example",
    });

    // A second owner with a passkey: then the first owner's last one may go.
    const { authenticator: partnerKey } = await enrolled(store, "partner@sous.example");
    expect(await removePasskey(signedIn(store, by), laptop.id)).toMatchObject({ removed: { id: laptop.id } });
    expect(await sessionOperator(store, onLaptop)).toBeUndefined();
    expect((await listPasskeys(store)).map(({ id, email }) => `${email} ${id}`)).toStrictEqual([
      `partner@sous.example ${partnerKey.id}`,
    ]);
  });

  it("end sessions: one of the operator's own by its id, or every one but this browser's; never another operator's; each time recorded", async () => {
    const store = await open(engine);
    const { authenticator, done } = await enrolled(store, "owner@sous.example");
    const { done: helper } = await enrolled(store, "viewer@sous.example", "viewer");
    const [second, third] = [await signInWith(store, authenticator), await signInWith(store, authenticator)];
    await labelSession(store, second, "Firefox on Windows");
    const listed = await sessionsOf(store, done.operator.id, done.session);
    expect(listed.map(({ current }) => current).sort()).toStrictEqual([false, false, true]);
    expect(listed.map(({ browser }) => browser)).toContain("Firefox on Windows");
    const secondId = listed.find(({ browser }) => browser === "Firefox on Windows")!.id;

    // Another operator's session, named by its id: nothing ends.
    const helperId = (await sessionsOf(store, helper.operator.id, helper.session))[0]!.id;
    expect(await endSessions(signedIn(store, done.operator), { current: done.session, ids: [helperId] })).toBe(0);
    expect((await sessionOperator(store, helper.session))?.email).toBe("viewer@sous.example");
    // One by its id.
    expect(await endSessions(signedIn(store, done.operator), { current: done.session, ids: [secondId] })).toBe(1);
    expect(await sessionOperator(store, second)).toBeUndefined();
    expect((await sessionOperator(store, third))?.email).toBe("owner@sous.example");
    // Every one but this browser's.
    await signInWith(store, authenticator);
    expect(await endSessions(signedIn(store, done.operator), { current: done.session })).toBe(2);
    expect((await sessionsOf(store, done.operator.id, done.session)).map(({ current }) => current)).toStrictEqual([
      true,
    ]);
    expect((await sessionOperator(store, helper.session))?.email).toBe("viewer@sous.example");
    // No id at all (a malformed one was posted): nothing ends.
    expect(await endSessions(signedIn(store, done.operator), { current: done.session, ids: [] })).toBe(0);
    expect((await sessionsOf(store, done.operator.id, done.session)).map(({ current }) => current)).toStrictEqual([
      true,
    ]);
    expect(
      (await activityPage(store, { limit: 4 })).map(
        ({ actor, via, action, rows }) => `${actor} ${via} ${action} ${rows}`,
      ),
    ).toStrictEqual([
      "owner@sous.example console sessions ended 0",
      "owner@sous.example console sessions ended 2",
      "owner@sous.example console sign-in 1",
      "owner@sous.example console sessions ended 1",
    ]);
    expect(
      (await activityPage(store, { limit: 4 })).slice(1).map(({ actor, action, rows }) => `${actor} ${action} ${rows}`),
    ).toStrictEqual([
      "owner@sous.example sessions ended 2",
      "owner@sous.example sign-in 1",
      "owner@sous.example sessions ended 1",
    ]);
  });

  it("sign out: that session ends and is recorded, another of the same operator's stays; a second sign-out does nothing", async () => {
    const store = await open(engine);
    const { authenticator, done } = await enrolled(store, "owner@sous.example");
    const { options, ceremony } = await signInOptions(store);
    const other = await completeSignIn(store, { ceremony, response: authenticator.signIn(options, site) });

    await signOutSession(store, done.session);
    expect(await sessionOperator(store, done.session)).toBeUndefined();
    expect((await sessionOperator(store, other.session))?.email).toBe("owner@sous.example");
    await signOutSession(store, done.session);
    expect((await activityPage(store, { limit: 5 })).map(({ actor, action }) => `${actor} ${action}`)).toStrictEqual([
      "owner@sous.example sign-out",
      "owner@sous.example sign-in",
      "owner@sous.example enrolled",
      "command operator added",
    ]);
  });

  it("refuse a link used once, a ceremony answered twice, another site's answer, a replayed counter and an unknown passkey; each changes nothing", async () => {
    const store = await open(engine);
    const { authenticator, link } = await enrolled(store, "owner@sous.example");
    const before = await passkeysOf(store, (await listOperators(store))[0]!.id);

    expect(await refusal(enrolmentOptions(store, { token: tokenOf(link.url) }))).toMatch(
      /^This enrolment link is not valid/,
    );
    expect(await refusal(enrolmentOptions(store, { token: "x".repeat(10_000) }))).toMatch(
      /^This enrolment link is not valid/,
    );

    // The answer to a sign-in, given twice: the challenge is gone the second time.
    const first = await signInOptions(store);
    const answer = authenticator.signIn(first.options, site);
    await completeSignIn(store, { ceremony: first.ceremony, response: answer });
    expect(await refusal(completeSignIn(store, { ceremony: first.ceremony, response: answer }))).toMatch(
      /took too long or was already answered/,
    );

    // Made for another origin, or another site's host.
    const elsewhere = await signInOptions(store);
    expect(
      await refusal(
        completeSignIn(store, {
          ceremony: elsewhere.ceremony,
          response: authenticator.signIn(elsewhere.options, "https://evil.example"),
        }),
      ),
    ).toBe("That passkey did not sign you in. Use a passkey registered for this console.");
    const otherHost = await signInOptions(store);
    expect(
      await refusal(
        completeSignIn(store, {
          ceremony: otherHost.ceremony,
          response: authenticator.signIn(otherHost.options, site, { rpId: "evil.example" }),
        }),
      ),
    ).toMatch(/did not sign you in/);

    // A cloned authenticator: its counter goes back.
    const cloned = await signInOptions(store);
    expect(
      await refusal(
        completeSignIn(store, {
          ceremony: cloned.ceremony,
          response: authenticator.signIn(cloned.options, site, { counter: 1 }),
        }),
      ),
    ).toMatch(/did not sign you in/);

    const stranger = new SoftAuthenticator();
    const unknown = await signInOptions(store);
    expect(
      await refusal(
        completeSignIn(store, { ceremony: unknown.ceremony, response: stranger.signIn(unknown.options, site) }),
      ),
    ).toMatch(/did not sign you in/);

    const counters = await passkeysOf(store, before[0]!.operatorId);
    // Only the one good sign-in moved the counter.
    expect(counters.map(({ counter }) => counter)).toStrictEqual([1]);
    expect((await activityPage(store, { limit: 10 })).map(({ action }) => action)).toStrictEqual([
      "sign-in",
      "enrolled",
      "operator added",
    ]);
  });

  it("refuse an enrolment answered for another origin, and keep the link for a second try", async () => {
    const store = await open(engine);
    const { link } = await addOperator(store, { email: "viewer@sous.example", role: "viewer", by: commandActor });
    const authenticator = new SoftAuthenticator();
    const wrong = await enrolmentOptions(store, { token: tokenOf(link.url) });
    expect(
      await refusal(
        completeEnrolment(store, {
          device: "Chrome on macOS",
          ceremony: wrong.ceremony,
          response: authenticator.register(wrong.options, "https://evil.example"),
        }),
      ),
    ).toBe("The passkey could not be verified. Try again from the start.");
    // Without user verification (a security key without its PIN): refused too.
    const unverified = await enrolmentOptions(store, { token: tokenOf(link.url) });
    expect(
      await refusal(
        completeEnrolment(store, {
          device: "Chrome on macOS",
          ceremony: unverified.ceremony,
          response: authenticator.register(unverified.options, site, { flags: 0x41 }),
        }),
      ),
    ).toMatch(/could not be verified/);
    expect(await passkeysOf(store, (await listOperators(store))[0]!.id)).toStrictEqual([]);
    // Its working twin: the same link, answered right.
    const right = await enrolmentOptions(store, { token: tokenOf(link.url) });
    // A second tab opened the same link before the first finished: the link is used once, by whichever ends first.
    const secondTab = await enrolmentOptions(store, { token: tokenOf(link.url) });
    const done = await completeEnrolment(store, {
      device: "Chrome on macOS",
      ceremony: right.ceremony,
      response: authenticator.register(right.options, site),
    });
    expect(done.operator.role).toBe("viewer");
    expect(
      await refusal(
        completeEnrolment(store, {
          device: "Chrome on macOS",
          ceremony: secondTab.ceremony,
          response: new SoftAuthenticator().register(secondTab.options, site),
        }),
      ),
    ).toMatch(/^This enrolment link is not valid/);
    expect(await passkeysOf(store, done.operator.id)).toHaveLength(1);
  });

  it("refuse a setup whose address is already a viewer's, saying so, and make no owner", async () => {
    const store = await open(engine);
    await addOperator(store, { email: "helper@sous.example", role: "viewer", by: commandActor });
    const { options, ceremony } = await setupOptions(store, {
      token: setupToken,
      email: "helper@sous.example",
    });
    expect(
      await refusal(
        completeSetup(store, {
          device: "Chrome on macOS",
          ceremony,
          response: new SoftAuthenticator().register(options, site),
          token: setupToken,
          email: "helper@sous.example",
        }),
      ),
    ).toBe("helper@sous.example is already an operator: set up with another address");
    expect(await ownerExists(store)).toBe(false);
  });

  it("enrol the first owner on the setup token once, and never again", async () => {
    const store = await open(engine);
    expect(await setupOpen(store, setupEnv)).toBe(true);
    expect(await setupOpen(store, { CONSOLE_SETUP_TOKEN: undefined })).toBe(false);
    expect(await refusal(setupOptions(store, { token: "t".repeat(40), email: "first@sous.example" }))).toBe(
      "That is not the setup token.",
    );
    expect(await refusal(setupOptions(store, { token: setupToken, email: "not an address" }))).toBe(
      "That is not an email address",
    );
    const authenticator = new SoftAuthenticator();
    const { options, ceremony } = await setupOptions(store, {
      token: setupToken,
      email: "First@Sous.Example",
    });
    // A second browser starts setup before the first finishes.
    const racing = await setupOptions(store, { token: setupToken, email: "second@sous.example" });
    const done = await completeSetup(store, {
      device: "Chrome on macOS",
      ceremony,
      response: authenticator.register(options, site),
      token: setupToken,
      email: "First@Sous.Example",
    });
    expect(done.operator).toMatchObject({ email: "first@sous.example", role: "owner" });
    // Named by its browser, and used: it signed the owner in.
    const [passkey] = await listPasskeys(store, { operatorId: done.operator.id });
    expect(passkey).toMatchObject({ name: "Chrome on macOS", usedAt: expect.any(Number) });
    expect(await ownerExists(store)).toBe(true);
    expect(await setupOpen(store, setupEnv)).toBe(false);
    expect(
      await refusal(
        completeSetup(store, {
          device: "Chrome on macOS",
          ceremony: racing.ceremony,
          response: new SoftAuthenticator().register(racing.options, site),
          token: setupToken,
          email: "second@sous.example",
        }),
      ),
    ).toBe("Setup is closed: an owner exists, or CONSOLE_SETUP_TOKEN is not set.");
    // Once closed, the token is not even read: a wrong one is told the same.
    expect(
      await refusal(
        completeSetup(store, {
          device: "Chrome on macOS",
          ceremony: racing.ceremony,
          response: new SoftAuthenticator().register(racing.options, site),
          token: "t".repeat(40),
          email: "third@sous.example",
        }),
      ),
    ).toBe("Setup is closed: an owner exists, or CONSOLE_SETUP_TOKEN is not set.");
    expect(await refusal(setupOptions(store, { token: setupToken, email: "third@sous.example" }))).toMatch(
      /^Setup is closed/,
    );
    expect((await listOperators(store)).map(({ email, passkeys }) => [email, passkeys])).toStrictEqual([
      ["first@sous.example", 1],
    ]);
    // The owner it made signs in.
    const signIn = await signInOptions(store);
    expect(
      (
        await completeSignIn(store, {
          ceremony: signIn.ceremony,
          response: authenticator.signIn(signIn.options, site),
        })
      ).operator.email,
    ).toBe("first@sous.example");
  });
});

describe("what the ceremonies ask of an authenticator", () => {
  it("a discoverable passkey that verifies its user, no attestation, for the site's host under the name Sous", async () => {
    const store = await open("sqlite");
    expect(relyingParty()).toStrictEqual({ id: "sous.example", origin: site, name: "Sous" });
    const { link } = await addOperator(store, { email: "asks@sous.example", role: "viewer", by: commandActor });
    const enrolment = (await enrolmentOptions(store, { token: tokenOf(link.url) })).options;
    const setup = (await setupOptions(store, { token: setupToken, email: "first@sous.example" })).options;
    for (const options of [enrolment, setup])
      expect(options).toMatchObject({
        rp: { id: "sous.example", name: "Sous" },
        attestation: "none",
        authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      });
    expect((await signInOptions(store)).options).toMatchObject({
      rpId: "sous.example",
      userVerification: "required",
    });
  });

  it("refuses a sign-in whose authenticator did not verify its user, and signs in the same one that did", async () => {
    const store = await open("sqlite");
    const { link } = await addOperator(store, { email: "verified@sous.example", role: "viewer", by: commandActor });
    const authenticator = new SoftAuthenticator();
    const { options, ceremony } = await enrolmentOptions(store, { token: tokenOf(link.url) });
    await completeEnrolment(store, {
      device: "Chrome on macOS",
      ceremony,
      response: authenticator.register(options, site),
    });
    const unverified = await signInOptions(store);
    expect(
      await refusal(
        completeSignIn(store, {
          ceremony: unverified.ceremony,
          response: authenticator.signIn(unverified.options, site, { flags: 0x01 }),
        }),
      ),
    ).toBe("That passkey did not sign you in. Use a passkey registered for this console.");
    const verified = await signInOptions(store);
    const done = await completeSignIn(store, {
      ceremony: verified.ceremony,
      response: authenticator.signIn(verified.options, site),
    });
    expect(done.operator.email).toBe("verified@sous.example");
    // Each line the console's ceremonies write says they came through the console.
    await signOutSession(store, done.session);
    expect(
      (await activityPage(store, { limit: 3 })).map(({ actor, via, action, subject }) => [actor, via, action, subject]),
    ).toStrictEqual([
      ["verified@sous.example", "console", "sign-out", null],
      ["verified@sous.example", "console", "sign-in", null],
      ["verified@sous.example", "console", "enrolled", null],
    ]);
  });

  it("records the first owner's enrolment as setup's, and knows no setup token when none is set", async () => {
    const store = await open("sqlite");
    const authenticator = new SoftAuthenticator();
    const email = "first@sous.example";
    const { options, ceremony } = await setupOptions(store, { token: setupToken, email });
    const response = authenticator.register(options, site);
    await completeSetup(store, { device: "Chrome on macOS", ceremony, response, token: setupToken, email });
    const [line] = await activityPage(store, { limit: 1 });
    expect(line).toMatchObject({ actor: email, via: "console", action: "enrolled", subject: "setup", rows: 1 });
    expect(setupTokenMatches(setupToken, setupEnv)).toBe(true);
    expect(setupTokenMatches(setupToken, { CONSOLE_SETUP_TOKEN: undefined })).toBe(false);
    expect(setupTokenMatches("", { CONSOLE_SETUP_TOKEN: undefined })).toBe(false);
  });
});
