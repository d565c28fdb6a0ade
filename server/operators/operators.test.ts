import { userInfo } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Store } from "@/server/db/connect";
import { setupBothEngines } from "@/tests/support/both-engines";
import { consoleStores } from "@/tests/support/console-store";
import { activityPage, cursorOf, forgetActivity, insertActivity, justDid, type ActivityCursor } from "./activity-store";
import {
  CHALLENGE_TTL_MS,
  LINK_TTL_MS,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  forgetExpiredAccess,
  hashOf,
  insertChallenge,
  insertPasskey,
  insertSession,
  linkOperator,
  operatorByEmail,
  ownerExists,
  passkeysOf,
  sessionOperator,
  setTimeZone,
  takeChallenge,
  timeZoneOf,
  useLink,
} from "./operator-store";
import {
  OperatorError,
  addOperator,
  changeRole,
  commandActor,
  commandActorAs,
  issueLink,
  listOperators,
  removeOperator,
  type Actor,
} from "./operators";

const open = consoleStores(setupBothEngines());
const tokenOf = (url: string) => new URL(url).pathname.split("/").at(-1)!;

/** A line written at `at`, by the clock set there and back. */
async function insertActivityAt(store: Store, line: Parameters<typeof insertActivity>[1], at: number) {
  vi.setSystemTime(at);
  await insertActivity(store, line);
  vi.useRealTimers();
}
// As the console's guard would make it for this operator.
const console_ = { actor: "owner@sous.example", via: "console" } as Actor;

describe.each(["sqlite", "postgres"] as const)("operators on %s", (engine) => {
  it("are added with a one-time link to the enrolment page, 15 minutes long, its token kept only as a hash", async () => {
    const store = await open(engine);
    expect(await ownerExists(store)).toBe(false);
    const { operator, link } = await addOperator(store, {
      email: " Chef@Sous.Example ",
      role: "owner",
      by: commandActor,
    });
    expect(operator).toMatchObject({ email: "chef@sous.example", role: "owner" });
    expect(await ownerExists(store)).toBe(true);
    expect(link.url).toMatch(/^http:\/\/localhost:3000\/console\/enrol\/[\w-]{43}$/);
    expect(link.expiresAt - Date.now()).toBeGreaterThan(LINK_TTL_MS - 5_000);
    const token = tokenOf(link.url);
    const rows = await store.db.selectFrom("operator_links").select("id").execute();
    expect(rows.map((row) => row.id)).toStrictEqual([hashOf(token)]);
    expect(JSON.stringify(rows)).not.toContain(token);

    const opened = await linkOperator(store, token);
    expect(opened?.operator.email).toBe("chef@sous.example");
    expect(await linkOperator(store, `${token}x`)).toBeUndefined();
    // Used once: a second use, by another request racing it, is refused.
    expect(await useLink(store, opened!.linkId)).toBe(true);
    expect(await useLink(store, opened!.linkId)).toBe(false);
    expect(await linkOperator(store, token)).toBeUndefined();
  });

  it("refuse an address that is not one, a role that is not one, and an address already added, changing nothing", async () => {
    const store = await open(engine);
    await addOperator(store, { email: "viewer@sous.example", role: "viewer", by: commandActor });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => "accepted",
        (error: Error) => error,
      );
    const notEmail = await refusal(addOperator(store, { email: "chef at sous", role: "viewer", by: commandActor }));
    expect(notEmail).toBeInstanceOf(OperatorError);
    expect((notEmail as Error).message).toBe("That is not an email address");
    expect(
      await refusal(addOperator(store, { email: "a@sous.example", role: "admin", by: commandActor })),
    ).toMatchObject({
      message: "The role is one of owner, viewer",
    });
    expect(
      await refusal(addOperator(store, { email: "VIEWER@sous.example", role: "owner", by: commandActor })),
    ).toMatchObject({ message: "viewer@sous.example is already an operator" });
    expect(
      await refusal(addOperator(store, { email: `${"a".repeat(250)}@x.io`, role: "owner", by: commandActor })),
    ).toMatchObject({
      message: "An email address has at most 254 characters",
    });
    expect((await listOperators(store)).map(({ email, role, passkeys }) => ({ email, role, passkeys }))).toStrictEqual([
      { email: "viewer@sous.example", role: "viewer", passkeys: 0 },
    ]);
    expect((await store.db.selectFrom("operator_links").select("id").execute()).length).toBe(1);
    // Its working twin: a new address is added.
    await addOperator(store, { email: "second@sous.example", role: "owner", by: commandActor });
    expect(await listOperators(store)).toHaveLength(2);
  });

  it("refuse a link past its 15 minutes", async () => {
    const store = await open(engine);
    const { link } = await addOperator(store, { email: "late@sous.example", role: "viewer", by: commandActor });
    const opened = await linkOperator(store, tokenOf(link.url));
    expect(opened).toBeDefined();
    at(link.expiresAt);
    expect(await linkOperator(store, tokenOf(link.url))).toBeUndefined();
    expect(await useLink(store, opened!.linkId)).toBe(false);
    at(link.expiresAt - 1);
    expect(await useLink(store, opened!.linkId)).toBe(true);
  });

  it("keep a session 12 hours idle and 7 days in all, as a hash; removing the operator ends it, and their passkeys go", async () => {
    const store = await open(engine);
    const { operator } = await addOperator(store, { email: "kept@sous.example", role: "viewer", by: commandActor });
    const now = at(1_000_000_000_000);
    const token = await insertSession(store, { operatorId: operator.id });
    expect(JSON.stringify(await store.db.selectFrom("operator_sessions").selectAll().execute())).not.toContain(token);
    at(now + SESSION_IDLE_MS - 1);
    expect((await sessionOperator(store, token))?.email).toBe("kept@sous.example");
    // That request moved its idle clock: 12 hours from it, not from the sign-in.
    at(now + 2 * SESSION_IDLE_MS - 2);
    expect(await sessionOperator(store, token)).toBeDefined();
    at(now + 4 * SESSION_IDLE_MS);
    expect(await sessionOperator(store, token)).toBeUndefined();

    at(now);
    const busy = await insertSession(store, { operatorId: operator.id });
    for (let time = now; time < now + SESSION_ABSOLUTE_MS; time += SESSION_IDLE_MS / 2) {
      at(time);
      expect(await sessionOperator(store, busy)).toBeDefined();
    }
    at(now + SESSION_ABSOLUTE_MS);
    expect(await sessionOperator(store, busy)).toBeUndefined();
    expect(await sessionOperator(store, "not-a-session")).toBeUndefined();

    vi.useRealTimers();
    const live = await insertSession(store, { operatorId: operator.id });
    await insertPasskey(store, {
      passkey: { id: "cred-1", operatorId: operator.id, publicKey: "pk", counter: 0, transports: ["internal"] },
    });
    expect(await passkeysOf(store, operator.id)).toStrictEqual([
      { id: "cred-1", operatorId: operator.id, publicKey: "pk", counter: 0, transports: ["internal"] },
    ]);
    expect(await sessionOperator(store, live)).toBeDefined();
    await removeOperator(store, { email: "kept@sous.example", by: commandActor });
    expect(await sessionOperator(store, live)).toBeUndefined();
    expect(await passkeysOf(store, operator.id)).toStrictEqual([]);
    expect(await operatorByEmail(store, "kept@sous.example")).toBeUndefined();
    // The keys cascade: nothing of theirs is left in any table.
    for (const table of ["operator_sessions", "operator_links", "operator_passkeys"] as const)
      expect(await store.db.selectFrom(table).select("operator_id").execute()).toStrictEqual([]);
  });

  it("answer a ceremony's challenge once, for its purpose, within 5 minutes", async () => {
    const store = await open(engine);
    const now = at(2_000_000_000_000);
    const id = await insertChallenge(store, { challenge: "c1", purpose: "sign-in" });
    expect(await takeChallenge(store, id, "enrol")).toBeUndefined();
    // A wrong purpose spent it too: a ceremony is one try.
    expect(await takeChallenge(store, id, "sign-in")).toBeUndefined();
    const again = await insertChallenge(store, { challenge: "c2", purpose: "sign-in" });
    at(now + 1);
    expect(await takeChallenge(store, again, "sign-in")).toStrictEqual({
      challenge: "c2",
      operatorId: null,
      linkId: null,
    });
    expect(await takeChallenge(store, again, "sign-in")).toBeUndefined();
    at(now);
    const stale = await insertChallenge(store, { challenge: "c3", purpose: "sign-in" });
    at(now + CHALLENGE_TTL_MS);
    expect(await takeChallenge(store, stale, "sign-in")).toBeUndefined();
  });

  it("forget the sessions, links and ceremonies that ran out, and keep the rest", async () => {
    const store = await open(engine);
    const { operator } = await addOperator(store, { email: "old@sous.example", role: "owner", by: commandActor });
    const now = Date.now();
    at(now - SESSION_ABSOLUTE_MS);
    await insertSession(store, { operatorId: operator.id });
    at(now - SESSION_IDLE_MS);
    await insertSession(store, { operatorId: operator.id });
    at(now - CHALLENGE_TTL_MS);
    await insertChallenge(store, { challenge: "x", purpose: "sign-in" });
    at(now);
    const kept = await insertSession(store, { operatorId: operator.id });
    await insertChallenge(store, { challenge: "y", purpose: "sign-in" });
    // The link addOperator issued is still good: only the two sessions and the ceremony go.
    expect(await forgetExpiredAccess(store, now)).toBe(3);
    expect(await sessionOperator(store, kept)).toBeDefined();
    expect(await forgetExpiredAccess(store, now + LINK_TTL_MS)).toBe(2);
  });

  it("list the log's lines of one millisecond newest first, in the order they were written, page after page", async () => {
    const store = await open(engine);
    await forgetActivity(store, Number.MAX_SAFE_INTEGER);
    const at = 7_000;
    const subjects = Array.from({ length: 12 }, (_, i) => `wave-${i}`);
    for (const subject of subjects)
      await insertActivityAt(store, { ...commandActor, action: "wave sent", subject, rows: 1 }, at);
    const seen: string[] = [];
    let after: ActivityCursor | undefined;
    for (let page = 0; page < 4; page += 1) {
      const lines = await activityPage(store, { limit: 5, ...(after ? { after } : {}) });
      seen.push(...lines.map((line) => line.subject!));
      after = lines.at(-1);
    }
    expect(seen).toStrictEqual(subjects.toReversed());
  });

  it("tell what an operator just did in the console: their last line, if of that action (and subject), in the last five minutes", async () => {
    const store = await open(engine);
    const at = Date.now();
    await insertActivityAt(store, { ...console_, action: "drop", subject: "msg_a", rows: 1 }, at - 1_000);
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_a" })).toStrictEqual({
      rows: 1,
      subject: "msg_a",
    });
    expect(await justDid(store, { actor: console_.actor, action: "drop" })).toStrictEqual({
      rows: 1,
      subject: "msg_a",
    });
    // Another lead, another action, another operator: nothing to tell.
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_b" })).toBeUndefined();
    expect(await justDid(store, { actor: console_.actor, action: "redeliver", subject: "msg_a" })).toBeUndefined();
    expect(await justDid(store, { actor: "other@sous.example", action: "drop", subject: "msg_a" })).toBeUndefined();
    // Only the last line counts: a later action of theirs, in the console, hides it; a command's does not.
    await insertActivityAt(store, { ...commandActor, action: "export", subject: "waitlist", rows: 3 }, at - 500);
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_a" })).toBeDefined();
    await insertActivityAt(store, { ...console_, action: "export", subject: "waitlist", rows: 3 }, at - 100);
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_a" })).toBeUndefined();
    // Older than five minutes: nothing either.
    await insertActivityAt(store, { ...console_, action: "sessions ended", rows: 2 }, at - 5 * 60_000 - 1_000);
    await store.db.deleteFrom("operator_activity").where("action", "=", "export").execute();
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_a" })).toBeDefined();
    await store.db
      .updateTable("operator_activity")
      .set({ at: at - 5 * 60_000 - 1 })
      .where("subject", "=", "msg_a")
      .execute();
    expect(await justDid(store, { actor: console_.actor, action: "drop", subject: "msg_a" })).toBeUndefined();
  });

  it("count only owners for the last owner: a viewer goes while one owner is left, and one owner beside a viewer stays, from the console and the shell", async () => {
    const store = await open(engine);
    await addOperator(store, { email: "owner@sous.example", role: "owner", by: commandActor });
    await addOperator(store, { email: "viewer@sous.example", role: "viewer", by: commandActor });
    await addOperator(store, { email: "other@sous.example", role: "viewer", by: commandActor });
    for (const by of [console_, commandActor])
      await expect(removeOperator(store, { email: "owner@sous.example", by })).rejects.toThrow(
        "owner@sous.example is the last owner: add another owner first",
      );
    await removeOperator(store, { email: "viewer@sous.example", by: console_ });
    expect((await listOperators(store)).map(({ email }) => email).sort()).toStrictEqual([
      "other@sous.example",
      "owner@sous.example",
    ]);
  });

  it("change a role, logged once; the last owner stays an owner, and a role that is none or the same changes nothing", async () => {
    const store = await open(engine);
    await addOperator(store, { email: "owner@sous.example", role: "owner", by: commandActor });
    await addOperator(store, { email: "helper@sous.example", role: "viewer", by: commandActor });
    const refused = await changeRole(store, { email: "owner@sous.example", role: "viewer", by: console_ }).catch(
      (error: OperatorError) => [error.message, error.code],
    );
    expect(refused).toStrictEqual(["owner@sous.example is the last owner: add another owner first", "last owner"]);
    // Each refusal with the code the console's page says it again by.
    const codeOf = (promise: Promise<unknown>) => promise.then(String, (error: OperatorError) => error.code);
    expect(await codeOf(changeRole(store, { email: "helper@sous.example", role: "admin", by: console_ }))).toBe(
      "invalid",
    );
    expect(await codeOf(changeRole(store, { email: "nobody@sous.example", role: "owner", by: console_ }))).toBe(
      "unknown",
    );
    expect(await codeOf(addOperator(store, { email: "helper@sous.example", role: "viewer", by: console_ }))).toBe(
      "exists",
    );
    await expect(changeRole(store, { email: "helper@sous.example", role: "admin", by: console_ })).rejects.toThrow(
      "The role is one of owner, viewer",
    );
    await expect(changeRole(store, { email: "nobody@sous.example", role: "owner", by: console_ })).rejects.toThrow(
      "nobody@sous.example is not an operator",
    );
    expect(await changeRole(store, { email: "helper@sous.example", role: "viewer", by: console_ })).toMatchObject({
      role: "viewer",
    });
    // Its working twin: a second owner first, then the first may become a viewer.
    expect(await changeRole(store, { email: " Helper@sous.example ", role: "owner", by: console_ })).toMatchObject({
      email: "helper@sous.example",
      role: "owner",
    });
    await changeRole(store, { email: "owner@sous.example", role: "viewer", by: console_ });
    const roles = Object.fromEntries((await listOperators(store)).map(({ email, role }) => [email, role]));
    expect(roles).toStrictEqual({ "owner@sous.example": "viewer", "helper@sous.example": "owner" });
    const log = await activityPage(store, { limit: 10 });
    expect(log.filter((line) => line.action === "role changed").map(({ subject }) => subject)).toStrictEqual([
      "owner@sous.example (viewer)",
      "helper@sous.example (owner)",
    ]);
  });

  it("keep the time zone each chose for the console, none until they do", async () => {
    const store = await open(engine);
    const owner = await addOperator(store, { email: "owner@sous.example", role: "owner", by: commandActor });
    const viewer = await addOperator(store, { email: "viewer@sous.example", role: "viewer", by: commandActor });
    expect(await timeZoneOf(store, owner.operator.id)).toBeUndefined();
    await setTimeZone(store, owner.operator.id, "America/Los_Angeles");
    await setTimeZone(store, viewer.operator.id, "Europe/Paris");
    await setTimeZone(store, owner.operator.id, "Asia/Kathmandu");
    expect(await timeZoneOf(store, owner.operator.id)).toBe("Asia/Kathmandu");
    expect(await timeZoneOf(store, viewer.operator.id)).toBe("Europe/Paris");
    expect(await timeZoneOf(store, "op_nobody")).toBeUndefined();
  });

  it("log each action once, with its actor and no one's number, and keep the last owner from the console", async () => {
    const store = await open(engine);
    await addOperator(store, { email: "first@sous.example", role: "owner", by: commandActor });
    await issueLink(store, { email: "first@sous.example", by: commandActor });
    const refused = await removeOperator(store, { email: "first@sous.example", by: console_ }).catch(
      (error: Error) => error,
    );
    expect(refused).toMatchObject({ message: "first@sous.example is the last owner: add another owner first" });
    await addOperator(store, { email: "second@sous.example", role: "owner", by: console_ });
    await removeOperator(store, { email: "first@sous.example", by: console_ });
    await expect(issueLink(store, { email: "first@sous.example", by: commandActor })).rejects.toThrow(
      "first@sous.example is not an operator",
    );
    const log = await activityPage(store, { limit: 10 });
    expect(log.map(({ actor, via, action, subject, rows }) => ({ actor, via, action, subject, rows }))).toStrictEqual([
      {
        actor: "owner@sous.example",
        via: "console",
        action: "operator removed",
        subject: "first@sous.example",
        rows: 1,
      },
      {
        actor: "owner@sous.example",
        via: "console",
        action: "operator added",
        subject: "second@sous.example (owner)",
        rows: 1,
      },
      { actor: "command", via: "command", action: "link issued", subject: "first@sous.example", rows: 1 },
      { actor: "command", via: "command", action: "operator added", subject: "first@sous.example (owner)", rows: 1 },
    ]);
    // Page by page from a line's time and id: every line once, those of one millisecond too.
    await store.db.updateTable("operator_activity").set({ at: 5_000 }).execute();
    const paged: string[] = [];
    let after: { at: number; id: string } | undefined;
    for (;;) {
      const page = await activityPage(store, { limit: 3, ...(after ? { after } : {}) });
      paged.push(...page.map((line) => line.id));
      if (page.length < 3) break;
      after = cursorOf(`${page.at(-1)!.at}~${page.at(-1)!.id}`);
    }
    expect(paged).toStrictEqual(
      log
        .map((line) => line.id)
        .sort()
        .reverse(),
    );
    expect([
      cursorOf("5000"),
      cursorOf("x~act_1"),
      cursorOf(["5000~a"]),
      cursorOf(`5000~${"a".repeat(81)}`),
      cursorOf("x5000~a"),
    ]).toStrictEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(cursorOf("5000~act_1-b")).toStrictEqual({ at: 5_000, id: "act_1-b" });
    expect(await forgetActivity(store, Date.now() + 1)).toBe(4);
  });
});

/** Sets the clock the store reads (Date.now()) to `time`, and returns it. */
function at(time: number) {
  vi.setSystemTime(time);
  return time;
}
afterEach(() => vi.useRealTimers());

describe("a command's actor", () => {
  it("is the operator --as names, as an address is kept, else the machine's user, else command", () => {
    expect(commandActorAs(" Founder@Sous.Example ")).toStrictEqual({ actor: "founder@sous.example", via: "command" });
    expect(commandActorAs(undefined)).toStrictEqual({ actor: userInfo().username, via: "command" });
    expect(commandActorAs(undefined, () => "deploy")).toStrictEqual({ actor: "deploy", via: "command" });
    expect(() => commandActorAs("the founder")).toThrow(new OperatorError("That is not an email address"));
    expect(() => commandActorAs("")).toThrow(OperatorError);
  });
});
