import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import {
  insertSession,
  newToken,
  SESSION_ABSOLUTE_MS,
  sessionOperator,
  sessionsOf,
} from "@/server/operators/operator-store";
import { addOperator, commandActor, removeOperator } from "@/server/operators/operators";
import { whereLeads } from "@/tests/support/navigation";
import { cookieAttributes, cookieJar, pinRequestHeaders } from "@/tests/support/request-headers";
import { cookieOf } from "./cookie";
import { browserOf, endSession, requirePageOperator, setSessionCookie, signedIn, signedInWith } from "./session";

beforeEach(() => {
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

let counter = 0;
/** A new operator of the role and a session of theirs, not yet in the browser. */
async function operatorWithSession(role: "owner" | "viewer") {
  const store = await database(readEnv());
  counter += 1;
  const email = `session-${role}-${counter}-${Date.now()}@sous.example`;
  const { operator } = await addOperator(store, { email, role, by: commandActor });
  return { store, email, operator, token: await insertSession(store, { operatorId: operator.id }) };
}

/** The same, signed in in this browser: the session's cookie set. */
async function signedInAs(role: "owner" | "viewer") {
  const found = await operatorWithSession(role);
  cookieJar.set(cookieOf().name, found.token);
  return found;
}

describe("who a session token signs in", () => {
  it("the operator with the role the database holds now", async () => {
    const { store, email, token } = await operatorWithSession("viewer");
    const found = await signedInWith(store, token);
    expect(found?.operator).toMatchObject({ email, role: "viewer" });
    // The store it answers with is the one to read with.
    expect(await sessionOperator(found!.store, token)).toMatchObject({ email });
  });

  it("no one for no token, one not made as tokens are, one no session has, or a removed operator's", async () => {
    const { store, email, token } = await operatorWithSession("viewer");
    for (const other of [undefined, "", "not-a-token", `${token}x`, token.slice(1), `${token.slice(0, 42)}!`])
      expect(await signedInWith(store, other), String(other)).toBeUndefined();
    expect(await signedInWith(store, newToken())).toBeUndefined();
    // The right one, beside them: it does sign in, until its operator is removed.
    expect(await signedInWith(store, token)).toBeDefined();
    await removeOperator(store, { email, by: commandActor });
    expect(await signedInWith(store, token)).toBeUndefined();
  });

  it("reads the browser's session cookie, and no other cookie", async () => {
    const { email, token } = await operatorWithSession("owner");
    cookieJar.set(cookieOf("search").name, token);
    expect(await signedIn()).toBeUndefined();
    cookieJar.set(cookieOf().name, token);
    expect((await signedIn())?.operator.email).toBe(email);
  });
});

describe("a console page's check", () => {
  it("leads a browser with no session to sign-in, and back to the page after it", async () => {
    expect(await whereLeads(requirePageOperator("/console/waitlist?filter=revoked"))).toBe(
      "/console/sign-in?next=%2Fconsole%2Fwaitlist%3Ffilter%3Drevoked",
    );
    // A path that is not the console's comes back to the overview.
    expect(await whereLeads(requirePageOperator("https://evil.example/console"))).toBe(
      "/console/sign-in?next=%2Fconsole",
    );
    cookieJar.set(cookieOf().name, newToken());
    expect(await whereLeads(requirePageOperator("/console/activity"))).toBe(
      "/console/sign-in?next=%2Fconsole%2Factivity",
    );
  });

  it("lets a viewer see a viewer's page and tells an owner's page it is not theirs; an owner sees both", async () => {
    const viewer = await signedInAs("viewer");
    expect(await requirePageOperator("/console/waitlist")).toMatchObject({
      operator: { email: viewer.email, role: "viewer" },
      allowed: true,
    });
    expect((await requirePageOperator("/console/waitlist", "viewer")).allowed).toBe(true);
    expect((await requirePageOperator("/console/operators", "owner")).allowed).toBe(false);

    const owner = await signedInAs("owner");
    expect(await requirePageOperator("/console/operators", "owner")).toMatchObject({
      operator: { email: owner.email, role: "owner" },
      allowed: true,
    });
    expect((await requirePageOperator("/console/waitlist")).allowed).toBe(true);
  });
});

describe("a browser in two words", () => {
  it("names the browser and the system a user agent says, and no more", () => {
    const agents: Array<[string | null, string]> = [
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
        "Chrome on macOS",
      ],
      ["Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0", "Firefox on Windows"],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36 Edg/156.0.0.0",
        "Edge on Windows",
      ],
      [
        "Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
        "Chrome on Android",
      ],
      [
        "Mozilla/5.0 (iPad; CPU OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/604.1",
        "Safari on iPad",
      ],
      [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chromium/156.0 Safari/537.36",
        "Chrome on Linux",
      ],
      ["curl/8.0", "A browser on an unknown system"],
      [null, "A browser on an unknown system"],
    ];
    for (const [agent, words] of agents) expect(browserOf(agent), String(agent)).toBe(words);
  });
});

describe("a session's cookie", () => {
  it("is set for the session's 7 days, HttpOnly, SameSite=Strict, for the whole site", async () => {
    const { token } = await operatorWithSession("viewer");
    await setSessionCookie(token);
    expect(cookieJar.get(cookieOf().name)).toBe(token);
    expect(cookieAttributes.get(cookieOf().name)).toStrictEqual({
      httpOnly: true,
      secure: false,
      sameSite: "strict",
      path: "/",
      maxAge: 7 * 24 * 60 * 60,
    });
    expect(SESSION_ABSOLUTE_MS).toBe(7 * 24 * 60 * 60_000);
  });

  it("ends the browser's session before it at every sign-in, another browser's staying, and names its browser", async () => {
    const { store, operator, token: before } = await signedInAs("viewer");
    const elsewhere = await insertSession(store, { operatorId: operator.id });
    const next = await insertSession(store, { operatorId: operator.id });
    pinRequestHeaders({
      "user-agent":
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
    });
    cookieJar.set(cookieOf("search").name, "+14155550142");
    await setSessionCookie(next);
    pinRequestHeaders(undefined);
    expect(cookieJar.get(cookieOf().name)).toBe(next);
    // No search of the operator signed in before stays in the browser.
    expect(cookieJar.has(cookieOf("search").name)).toBe(false);
    expect(cookieAttributes.get(cookieOf("search").name)).toMatchObject({ maxAge: 0, httpOnly: true, path: "/" });
    expect(await sessionOperator(store, before)).toBeUndefined();
    expect(await sessionOperator(store, elsewhere)).toBeDefined();
    const listed = await sessionsOf(store, operator.id, next);
    expect(listed.find(({ current }) => current)?.browser).toBe("Safari on iPhone");
    // The same token set again (a retried answer) ends nothing.
    await setSessionCookie(next);
    expect(await sessionOperator(store, next)).toBeDefined();
  });

  it("ends with its row deleted and its cookie cleared; another browser's session stays", async () => {
    const { store, operator, token } = await signedInAs("viewer");
    const other = await insertSession(store, { operatorId: operator.id });
    cookieJar.set(cookieOf("search").name, "Julia");
    await endSession();
    expect(cookieJar.has(cookieOf().name)).toBe(false);
    expect(cookieJar.has(cookieOf("search").name)).toBe(false);
    expect(cookieAttributes.get(cookieOf().name)).toMatchObject({ maxAge: 0, httpOnly: true, path: "/" });
    expect(await sessionOperator(store, token)).toBeUndefined();
    expect(await sessionOperator(store, other)).toBeDefined();

    // With no session, or a cookie that is not one, it clears the cookie and touches no row.
    cookieJar.set(cookieOf().name, "not-a-token");
    await endSession();
    expect(cookieJar.has(cookieOf().name)).toBe(false);
    await endSession();
    expect(await sessionOperator(store, other)).toBeDefined();
  });
});
