import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { inTransaction, type Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { siteUrl } from "@/server/site-settings";
import { insertActivity } from "./activity-store";
import {
  deletePasskey,
  deleteSession,
  deleteSessions,
  emailKey,
  insertChallenge,
  insertOperator,
  insertPasskey,
  insertSession,
  linkOperator,
  listOperators,
  listPasskeys,
  ownerExists,
  passkeyById,
  passkeysOf,
  passkeyUsed,
  operatorByEmail,
  sessionOperator,
  operatorById,
  takeChallenge,
  useLink,
  type ListedPasskey,
  type Operator,
} from "./operator-store";
import { OperatorError, operatorEmail } from "./operators";

/**
 * The passkey ceremonies of the console (decision 0014): registering one
 * from an enrolment link or, while no owner exists, with CONSOLE_SETUP_TOKEN;
 * signing in with one. Each is two steps: the options the browser hands its
 * authenticator (with a challenge kept once, 5 minutes, under a ceremony id
 * for the browser's cookie), then the authenticator's answer, verified by
 * SimpleWebAuthn. A verified ceremony opens a session: its token is for the
 * cookie, and only its hash is kept.
 */

/** The relying party: the site's own address (SITE_URL). A passkey works on that host only. */
export function relyingParty(env: Pick<ServerEnv, "SITE_URL"> | NodeJS.ProcessEnv = process.env) {
  const url = siteUrl(env as NodeJS.ProcessEnv);
  return { id: url.hostname, origin: url.origin, name: "Sous" };
}

/** Why a ceremony was refused, in words an operator can act on; never with what the browser sent. */
export class CeremonyError extends OperatorError {}
const refused = (message: string): never => {
  throw new CeremonyError(message);
};

const linkGone =
  "This enrolment link is not valid: it was used, it ran out (15 minutes), or it never was. Ask an owner for a new one (npm run operators -- link EMAIL).";

/**
 * An operator's registration options: a discoverable passkey (sign-in names
 * no one first), the user verified, no attestation. `exclude` lists passkeys
 * the authenticator should say it holds already.
 */
function registrationFor(operator: Operator, exclude: readonly KnownPasskey[], env?: NodeJS.ProcessEnv) {
  const rp = relyingParty(env);
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: operator.email,
    userID: new TextEncoder().encode(operator.id),
    attestationType: "none",
    excludeCredentials: exclude.map(({ id, transports }) => ({ id, transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
}

type KnownPasskey = Awaited<ReturnType<typeof passkeysOf>>[number];

/**
 * The registration options for the operator an enrolment link names. They
 * list none of the operator's passkeys: a link's holder learns no credential id.
 */
export async function enrolmentOptions(store: Store, { token, env }: { token: string; env?: NodeJS.ProcessEnv }) {
  const found = (await linkOperator(store, token)) ?? refused(linkGone);
  const options = await registrationFor(found.operator, [], env);
  const ceremony = await insertChallenge(store, {
    challenge: options.challenge,
    purpose: "enrol",
    operatorId: found.operator.id,
    linkId: found.linkId,
  });
  return { options, ceremony, operator: found.operator };
}

/** Whether the setup token typed is CONSOLE_SETUP_TOKEN, compared in constant time. */
export function setupTokenMatches(typed: string, env: Pick<ServerEnv, "CONSOLE_SETUP_TOKEN">) {
  if (!env.CONSOLE_SETUP_TOKEN) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(typed), digest(env.CONSOLE_SETUP_TOKEN));
}

/** Whether /console/setup is open: a setup token is set and no owner exists yet. */
export async function setupOpen(store: Store, env: Pick<ServerEnv, "CONSOLE_SETUP_TOKEN">) {
  return Boolean(env.CONSOLE_SETUP_TOKEN) && !(await ownerExists(store));
}

/** The settings setup reads: the token, as parsed (server/env.ts), and SITE_URL for the relying party. */
type SetupEnv = Pick<ServerEnv, "CONSOLE_SETUP_TOKEN"> & NodeJS.ProcessEnv;

const setupClosed = "Setup is closed: an owner exists, or CONSOLE_SETUP_TOKEN is not set.";

/** The first owner's registration options, on the setup token. */
export async function setupOptions(
  store: Store,
  { token, email, env }: { token: string; email: string; env: SetupEnv },
) {
  if (!(await setupOpen(store, env))) refused(setupClosed);
  if (!setupTokenMatches(token, env)) refused("That is not the setup token.");
  const address = parsedEmail(email);
  const rp = relyingParty(env);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: address,
    userID: new TextEncoder().encode(FIRST_OWNER_ID),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  const ceremony = await insertChallenge(store, { challenge: options.challenge, purpose: "setup" });
  return { options, ceremony };
}

/** The first owner's id when setup made them: a second setup's owner collides with it, so only one ever can. */
const FIRST_OWNER_ID = "op_first_owner";

const parsedEmail = (email: string) => {
  const result = operatorEmail.safeParse(email);
  return result.success ? emailKey(result.data) : refused(result.error.issues[0]!.message);
};

/** The authenticator's answer, checked against the ceremony's challenge, the site's origin and its host. */
async function verifiedRegistration(response: RegistrationResponseJSON, challenge: string, env?: NodeJS.ProcessEnv) {
  const rp = relyingParty(env);
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(() => ({ verified: false as const }));
  if (!verification.verified) return refused("The passkey could not be verified. Try again from the start.");
  const { credential } = verification.registrationInfo;
  return {
    id: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    transports: credential.transports ?? [],
  };
}

/**
 * Registers the passkey an enrolment link's ceremony made: the link is used
 * once (a second answer, or another tab, is refused), and the operator is
 * signed in.
 */
export async function completeEnrolment(
  store: Store,
  { ceremony, response, env }: { ceremony: string; response: RegistrationResponseJSON; env?: NodeJS.ProcessEnv },
) {
  const taken = (await takeChallenge(store, ceremony, "enrol")) ?? refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge, env);
  return inTransaction(store, async (tx) => {
    if (!(await useLink(tx, taken.linkId!))) refused(linkGone);
    const operator = (await operatorById(tx, taken.operatorId!)) ?? refused(linkGone);
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id } });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "enrolled", rows: 1 });
    return { operator, session: await insertSession(tx, { operatorId: operator.id, passkeyId: passkey.id }) };
  });
}

/** Registers the first owner and their passkey, once: setup closes with it. */
export async function completeSetup(
  store: Store,
  {
    ceremony,
    response,
    token,
    email,
    env,
  }: {
    ceremony: string;
    response: RegistrationResponseJSON;
    token: string;
    email: string;
    env: SetupEnv;
  },
) {
  if (!(await setupOpen(store, env))) refused(setupClosed);
  if (!setupTokenMatches(token, env)) refused("That is not the setup token.");
  const address = parsedEmail(email);
  const taken = (await takeChallenge(store, ceremony, "setup")) ?? refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge, env);
  return inTransaction(store, async (tx) => {
    if (await ownerExists(tx)) refused(setupClosed);
    const operator = await insertFirstOwner(tx, address);
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id } });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "enrolled", subject: "setup", rows: 1 });
    return { operator, session: await insertSession(tx, { operatorId: operator.id, passkeyId: passkey.id }) };
  });
}

async function insertFirstOwner(store: Store, email: string): Promise<Operator> {
  if (await operatorByEmail(store, email)) refused(`${email} is already an operator: set up with another address`);
  const operator = await insertOperator(store, { email, role: "owner", id: FIRST_OWNER_ID }).catch(() => undefined);
  return operator ?? refused(setupClosed);
}

const ceremonyGone = "This sign-in or enrolment took too long or was already answered. Start again.";

/** A sign-in's options: any passkey of this site (a discoverable credential names its operator). */
export async function signInOptions(store: Store, env?: NodeJS.ProcessEnv) {
  const rp = relyingParty(env);
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required" });
  const ceremony = await insertChallenge(store, { challenge: options.challenge, purpose: "sign-in" });
  return { options, ceremony };
}

const notSignedIn = "That passkey did not sign you in. Use a passkey registered for this console.";

/** A passkey's answer to a challenge: its signature, counter and user verification checked; the counter moved on. */
async function verifiedAssertion(
  store: Store,
  { challenge, response, env }: { challenge: string; response: AuthenticationResponseJSON; env?: NodeJS.ProcessEnv },
) {
  const passkey = (await passkeyById(store, String(response.id))) ?? refused(notSignedIn);
  const rp = relyingParty(env);
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    credential: {
      id: passkey.id,
      publicKey: Buffer.from(passkey.publicKey, "base64url"),
      counter: passkey.counter,
      transports: passkey.transports,
    },
  }).catch(() => ({ verified: false as const }));
  if (!verification.verified) return refused(notSignedIn);
  return { passkey, counter: verification.authenticationInfo.newCounter };
}

/**
 * Signs an operator in with a passkey: its answer verified, then `admit`
 * (the per-operator limit) asked, then a new session opened.
 */
export async function completeSignIn(
  store: Store,
  {
    ceremony,
    response,
    admit,
    env,
  }: {
    ceremony: string;
    response: AuthenticationResponseJSON;
    admit?: (operatorId: string) => Promise<void>;
    env?: NodeJS.ProcessEnv;
  },
) {
  const taken = (await takeChallenge(store, ceremony, "sign-in")) ?? refused(ceremonyGone);
  const { passkey, counter } = await verifiedAssertion(store, { challenge: taken.challenge, response, env });
  await admit?.(passkey.operatorId);
  return inTransaction(store, async (tx) => {
    const operator = (await operatorById(tx, passkey.operatorId)) ?? refused(notSignedIn);
    await passkeyUsed(tx, { id: passkey.id, counter });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sign-in", rows: 1 });
    return { operator, session: await insertSession(tx, { operatorId: operator.id, passkeyId: passkey.id }) };
  });
}

/** Ends a session (sign-out) and records it; nothing for a session already gone. */
export async function signOutSession(store: Store, token: string) {
  await inTransaction(store, async (tx) => {
    const operator = await sessionOperator(tx, token);
    if (!operator) return;
    await deleteSession(tx, token);
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sign-out", rows: 1 });
  });
}

/**
 * Before another passkey is added, the operator's own passkey is asked again
 * (user verified): a borrowed or stolen session alone cannot add one.
 */
export async function confirmationOptions(
  store: Store,
  { operator, env }: { operator: Operator; env?: NodeJS.ProcessEnv },
) {
  const own = await passkeysOf(store, operator.id);
  if (!own.length) refused("You have no passkey to confirm with. Sign in again with a passkey.");
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(env).id,
    userVerification: "required",
    // No transports: at a new device the passkey is elsewhere (a phone), which a transport of "internal" would rule out.
    allowCredentials: own.map(({ id }) => ({ id })),
  });
  const ceremony = await insertChallenge(store, {
    challenge: options.challenge,
    purpose: "confirm",
    operatorId: operator.id,
  });
  return { options, ceremony };
}

/**
 * The registration options for another passkey (a new device), once the
 * operator's own passkey confirmed it: the ones they have are excluded, so an
 * authenticator that holds one already says so instead of registering it twice.
 */
export async function addPasskeyOptions(
  store: Store,
  {
    operator,
    ceremony,
    response,
    env,
  }: { operator: Operator; ceremony: string; response: AuthenticationResponseJSON; env?: NodeJS.ProcessEnv },
) {
  const taken = (await takeChallenge(store, ceremony, "confirm")) ?? refused(ceremonyGone);
  if (taken.operatorId !== operator.id) refused(ceremonyGone);
  const { passkey, counter } = await verifiedAssertion(store, { challenge: taken.challenge, response, env });
  if (passkey.operatorId !== operator.id) refused(notSignedIn);
  await passkeyUsed(store, { id: passkey.id, counter });
  const options = await registrationFor(operator, await passkeysOf(store, operator.id), env);
  const next = await insertChallenge(store, { challenge: options.challenge, purpose: "add", operatorId: operator.id });
  return { options, ceremony: next };
}

/** Registers the passkey an add ceremony made, for the operator who started it only; the session goes on as it was. */
export async function completeAddPasskey(
  store: Store,
  {
    operator,
    ceremony,
    response,
    env,
  }: { operator: Operator; ceremony: string; response: RegistrationResponseJSON; env?: NodeJS.ProcessEnv },
) {
  const taken = (await takeChallenge(store, ceremony, "add")) ?? refused(ceremonyGone);
  if (taken.operatorId !== operator.id) refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge, env);
  await inTransaction(store, async (tx) => {
    if (await passkeyById(tx, passkey.id)) refused("This passkey is registered already.");
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id } });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "passkey added", rows: 1 });
  });
  return passkey.id;
}

/**
 * Revokes a passkey (a lost or retired device): the sessions it opened end
 * at once, the operator's other passkeys and their sessions stay. An owner
 * revokes anyone's, a viewer their own. Refused ("last") when it would leave
 * no owner with a passkey: nobody could then sign in to manage operators but
 * from the shell (`npm run operators -- link EMAIL`); "unknown" when no
 * passkey it may revoke has the id. Either way nothing changes.
 */
export async function removePasskey(
  store: Store,
  { id, operator }: { id: string; operator: Operator },
): Promise<{ removed: ListedPasskey } | { refused: "unknown" | "last" }> {
  return inTransaction(store, async (tx) => {
    const passkeys = await listPasskeys(tx);
    const revoked = passkeys.find(
      (passkey) => passkey.id === id && (operator.role === "owner" || passkey.operatorId === operator.id),
    );
    if (!revoked) return { refused: "unknown" as const };
    const owners = new Set((await listOperators(tx)).filter(({ role }) => role === "owner").map((owner) => owner.id));
    const ownersLeft = passkeys.filter((passkey) => passkey.id !== id && owners.has(passkey.operatorId));
    if (owners.has(revoked.operatorId) && ownersLeft.length === 0) return { refused: "last" as const };
    await deletePasskey(tx, id);
    await insertActivity(tx, {
      actor: operator.email,
      via: "console",
      action: "passkey removed",
      subject: revoked.email,
      rows: 1,
    });
    return { removed: revoked };
  });
}

/** Ends an operator's own sessions: the ones named (by their rows' ids), or every one but this browser's (`current`). */
export async function endSessions(
  store: Store,
  { operator, current, ids }: { operator: Operator; current: string; ids?: readonly string[] },
) {
  return inTransaction(store, async (tx) => {
    const ended = await deleteSessions(tx, { operatorId: operator.id, ...(ids ? { ids } : { except: current }) });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sessions ended", rows: ended });
    return ended;
  });
}
