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
import { readEnv, type ServerEnv } from "@/server/env";
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
  renamePasskey,
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
import { OperatorError, operatorEmail, type SignedIn } from "./operators";

// The console's passkey ceremonies (decision 0014): options with a challenge kept once for 5 minutes, then the
// authenticator's answer verified by SimpleWebAuthn. A session's token goes to the cookie; only its hash is kept.

export function relyingParty() {
  const url = siteUrl();
  return { id: url.hostname, origin: url.origin, name: "Sous" };
}

/** In words an operator can act on; never with what the browser sent. */
export class CeremonyError extends OperatorError {}
const refused = (message: string): never => {
  throw new CeremonyError(message);
};

const linkGone =
  "This enrolment link is not valid: it was used, it ran out (15 minutes), or it never was. Ask an owner for a new one (npm run operators -- link EMAIL).";

/** A discoverable passkey (sign-in names no one first), the user verified, no attestation. */
function registrationFor(operator: Operator, exclude: readonly KnownPasskey[]) {
  const rp = relyingParty();
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

/** They list none of the operator's passkeys: a link's holder learns no credential id. */
export async function enrolmentOptions(store: Store, { token }: { token: string }) {
  const found = (await linkOperator(store, token)) ?? refused(linkGone);
  const options = await registrationFor(found.operator, []);
  const ceremony = await insertChallenge(store, {
    challenge: options.challenge,
    purpose: "enrol",
    operatorId: found.operator.id,
    linkId: found.linkId,
  });
  return { options, ceremony, operator: found.operator };
}

export function setupTokenMatches(typed: string, env: Pick<ServerEnv, "CONSOLE_SETUP_TOKEN">) {
  if (!env.CONSOLE_SETUP_TOKEN) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(typed), digest(env.CONSOLE_SETUP_TOKEN));
}

export async function setupOpen(store: Store, env: Pick<ServerEnv, "CONSOLE_SETUP_TOKEN">) {
  return Boolean(env.CONSOLE_SETUP_TOKEN) && !(await ownerExists(store));
}

const setupClosed = "Setup is closed: an owner exists, or CONSOLE_SETUP_TOKEN is not set.";

export async function setupOptions(store: Store, { token, email }: { token: string; email: string }) {
  const env = readEnv();
  if (!(await setupOpen(store, env))) refused(setupClosed);
  if (!setupTokenMatches(token, env)) refused("That is not the setup token.");
  const address = parsedEmail(email);
  const rp = relyingParty();
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

/** A second setup's owner collides with this id, so only one ever can. */
const FIRST_OWNER_ID = "op_first_owner";

const parsedEmail = (email: string) => {
  const result = operatorEmail.safeParse(email);
  return result.success ? emailKey(result.data) : refused(result.error.issues[0]!.message);
};

async function verifiedRegistration(response: RegistrationResponseJSON, challenge: string) {
  const rp = relyingParty();
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

/** The link is used once: a second answer, or another tab, is refused. */
export async function completeEnrolment(
  store: Store,
  { ceremony, response, device }: { ceremony: string; response: RegistrationResponseJSON; device: string },
) {
  const taken = (await takeChallenge(store, ceremony, "enrol")) ?? refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge);
  return inTransaction(store, async (tx) => {
    if (!(await useLink(tx, taken.linkId!))) refused(linkGone);
    const operator = (await operatorById(tx, taken.operatorId!)) ?? refused(linkGone);
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id }, name: device, used: true });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "enrolled", rows: 1 });
    return { operator, session: await insertSession(tx, { operatorId: operator.id, passkeyId: passkey.id }) };
  });
}

export async function completeSetup(
  store: Store,
  {
    ceremony,
    response,
    token,
    email,
    device,
  }: {
    ceremony: string;
    response: RegistrationResponseJSON;
    token: string;
    email: string;
    device: string;
  },
) {
  const env = readEnv();
  if (!(await setupOpen(store, env))) refused(setupClosed);
  if (!setupTokenMatches(token, env)) refused("That is not the setup token.");
  const address = parsedEmail(email);
  const taken = (await takeChallenge(store, ceremony, "setup")) ?? refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge);
  return inTransaction(store, async (tx) => {
    if (await ownerExists(tx)) refused(setupClosed);
    const operator = await insertFirstOwner(tx, address);
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id }, name: device, used: true });
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

export async function signInOptions(store: Store) {
  const rp = relyingParty();
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required" });
  const ceremony = await insertChallenge(store, { challenge: options.challenge, purpose: "sign-in" });
  return { options, ceremony };
}

const notSignedIn = "That passkey did not sign you in. Use a passkey registered for this console.";

async function verifiedAssertion(
  store: Store,
  { challenge, response }: { challenge: string; response: AuthenticationResponseJSON },
) {
  const passkey = (await passkeyById(store, String(response.id))) ?? refused(notSignedIn);
  const rp = relyingParty();
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

/** The per-operator limit (`admit`) is asked only once the passkey signed. */
export async function completeSignIn(
  store: Store,
  {
    ceremony,
    response,
    admit,
  }: {
    ceremony: string;
    response: AuthenticationResponseJSON;
    admit?: (operatorId: string) => Promise<void>;
  },
) {
  const taken = (await takeChallenge(store, ceremony, "sign-in")) ?? refused(ceremonyGone);
  const { passkey, counter } = await verifiedAssertion(store, { challenge: taken.challenge, response });
  await admit?.(passkey.operatorId);
  return inTransaction(store, async (tx) => {
    const operator = (await operatorById(tx, passkey.operatorId)) ?? refused(notSignedIn);
    await passkeyUsed(tx, { id: passkey.id, counter });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sign-in", rows: 1 });
    return { operator, session: await insertSession(tx, { operatorId: operator.id, passkeyId: passkey.id }) };
  });
}

export async function signOutSession(store: Store, token: string) {
  await inTransaction(store, async (tx) => {
    const operator = await sessionOperator(tx, token);
    if (!operator) return;
    await deleteSession(tx, token);
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sign-out", rows: 1 });
  });
}

/** The operator's own passkey is asked again before another is added: a borrowed session alone cannot add one. */
export async function confirmationOptions({ store, operator }: SignedIn) {
  const own = await passkeysOf(store, operator.id);
  if (!own.length) refused("You have no passkey to confirm with. Sign in again with a passkey.");
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().id,
    userVerification: "required",
    // No transports: at a new device the passkey is elsewhere (a phone), which "internal" would rule out.
    allowCredentials: own.map(({ id }) => ({ id })),
  });
  const ceremony = await insertChallenge(store, {
    challenge: options.challenge,
    purpose: "confirm",
    operatorId: operator.id,
  });
  return { options, ceremony };
}

/** The ones they have are excluded, so an authenticator that holds one says so instead of registering it twice. */
export async function addPasskeyOptions(
  { store, operator }: SignedIn,
  { ceremony, response }: { ceremony: string; response: AuthenticationResponseJSON },
) {
  const taken = (await takeChallenge(store, ceremony, "confirm")) ?? refused(ceremonyGone);
  if (taken.operatorId !== operator.id) refused(ceremonyGone);
  const { passkey, counter } = await verifiedAssertion(store, { challenge: taken.challenge, response });
  if (passkey.operatorId !== operator.id) refused(notSignedIn);
  await passkeyUsed(store, { id: passkey.id, counter });
  const options = await registrationFor(operator, await passkeysOf(store, operator.id));
  const next = await insertChallenge(store, { challenge: options.challenge, purpose: "add", operatorId: operator.id });
  return { options, ceremony: next };
}

export async function completeAddPasskey(
  { store, operator }: SignedIn,
  { ceremony, response, device }: { ceremony: string; response: RegistrationResponseJSON; device: string },
) {
  const taken = (await takeChallenge(store, ceremony, "add")) ?? refused(ceremonyGone);
  if (taken.operatorId !== operator.id) refused(ceremonyGone);
  const passkey = await verifiedRegistration(response, taken.challenge);
  await inTransaction(store, async (tx) => {
    if (await passkeyById(tx, passkey.id)) refused("This passkey is registered already.");
    await insertPasskey(tx, { passkey: { ...passkey, operatorId: operator.id }, name: device });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "passkey added", rows: 1 });
  });
  return passkey.id;
}

export const PASSKEY_NAME_MAX = 60;

/** The operator's own words for the device a passkey of theirs is on: one line, 1 to 60 characters. */
export async function renameOwnPasskey({ store, operator }: SignedIn, id: string, name: string) {
  const words = name.replace(/\s+/g, " ").trim();
  if (!words || words.length > PASSKEY_NAME_MAX) return false;
  return renamePasskey(store, { id, name: words, operatorId: operator.id });
}

/** Its sessions end at once. Refused ("last") when it would leave no owner with a passkey: only the shell could then manage operators. */
export async function removePasskey(
  { store, operator }: SignedIn,
  id: string,
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

export async function endSessions(
  { store, operator }: SignedIn,
  { current, ids }: { current: string; ids?: readonly string[] },
) {
  return inTransaction(store, async (tx) => {
    const ended = await deleteSessions(tx, { operatorId: operator.id, ...(ids ? { ids } : { except: current }) });
    await insertActivity(tx, { actor: operator.email, via: "console", action: "sessions ended", rows: ended });
    return ended;
  });
}
