import "server-only";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { database, type Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { deleteSession, labelSession, sessionOperator, SESSION_ABSOLUTE_MS } from "@/server/operators/operator-store";
import { signOutSession } from "@/server/operators/passkeys";
import type { SignedIn } from "@/server/operators/operators";
import type { OperatorRole } from "@/server/db/schema";
import { cookieOf, consolePath, isSessionToken } from "./cookie";

// Checked in every console page, action and download, first thing (decision 0015): middleware.ts only adds headers,
// so a bypass of it opens nothing. The role is read from the database on each request, never from the cookie.

export async function consoleStore() {
  return database(readEnv());
}

export async function signedInWith(store: Store, token: string | undefined): Promise<SignedIn | undefined> {
  if (!isSessionToken(token)) return undefined;
  const operator = await sessionOperator(store, token);
  return operator ? ({ operator, store } as SignedIn) : undefined;
}

export async function signedIn(): Promise<SignedIn | undefined> {
  return signedInWith(await consoleStore(), (await cookies()).get(cookieOf().name)?.value);
}

const allows = (role: OperatorRole, needed: OperatorRole) => needed === "viewer" || role === "owner";

/** Without a session, to sign-in and back; a viewer on an owner's page gets the page's own 403 text. */
export async function requirePageOperator(path: string, role: OperatorRole = "viewer") {
  const found = await signedIn();
  if (!found) redirect(`/console/sign-in?next=${encodeURIComponent(consolePath(path))}`);
  return { ...found, allowed: allows(found.operator.role, role) };
}

const browsers: Array<[string, RegExp]> = [
  ["Edge", /Edg\//],
  ["Firefox", /Firefox\//],
  ["Chrome", /Chrom(e|ium)\//],
  ["Safari", /Safari\//],
];
// iPhone and iPad agents also say "Mac OS X", Android's "Linux": the first that matches names it.
const systems: Array<[string, RegExp]> = [
  ["iPhone", /iPhone/],
  ["iPad", /iPad/],
  ["Android", /Android/],
  ["Windows", /Windows/],
  ["macOS", /Macintosh|Mac OS X/],
  ["Linux", /Linux/],
];
const firstOf = (names: Array<[string, RegExp]>, agent: string) =>
  names.find(([, pattern]) => pattern.test(agent))?.[0];

/** Enough to tell sessions apart, and no more. */
export function browserOf(userAgent: string | null) {
  const agent = userAgent ?? "";
  return `${firstOf(browsers, agent) ?? "A browser"} on ${firstOf(systems, agent) ?? "an unknown system"}`;
}

/** The browser asking, in words: a session's label, a new passkey's first name. */
export async function thisBrowser() {
  return browserOf((await headers()).get("user-agent"));
}

/** A new cookie on every sign-in ends the browser's session before it and the search it kept. */
export async function setSessionCookie(token: string) {
  const jar = await cookies();
  const { name, attributes } = cookieOf();
  const store = await consoleStore();
  const previous = jar.get(name)?.value;
  if (isSessionToken(previous) && previous !== token) await deleteSession(store, previous);
  await labelSession(store, token, await thisBrowser());
  jar.set(name, token, { ...attributes, maxAge: SESSION_ABSOLUTE_MS / 1000 });
  jar.set(cookieOf("search").name, "", { ...attributes, maxAge: 0 });
}

export async function endSession() {
  const jar = await cookies();
  const { name, attributes } = cookieOf();
  const token = jar.get(name)?.value;
  if (isSessionToken(token)) await signOutSession(await consoleStore(), token);
  for (const cleared of [name, cookieOf("search").name]) jar.set(cleared, "", { ...attributes, maxAge: 0 });
}
