import "server-only";
import { userInfo } from "node:os";
import { z } from "zod";
import { inTransaction, type Store } from "@/server/db/connect";
import { operatorRoles, type OperatorRole } from "@/server/db/schema";
import { siteUrl } from "@/server/site-settings";
import { insertActivity } from "./activity-store";
import {
  deleteOperator,
  insertLink,
  insertOperator,
  emailKey,
  listOperators,
  operatorByEmail,
  setRole,
  type Operator,
} from "./operator-store";

// The same for `npm run operators` and the console: each action written to the activity log in the same transaction.

declare const guarded: unique symbol;
/** Made only by the console's guard (server/console/session.ts): a console handler without it has no one to act as. */
export type Guarded<T> = T & { readonly [guarded]: true };

/** What the guard hands a console page, route or action; the console's frame, downloads and actions take nothing else. */
export type SignedIn = Guarded<{ operator: Operator; store: Store }>;

/** Who did it, for the activity log: a command's user, or an operator the console's guard found signed in. */
export type Actor = { actor: string; via: "command" } | Guarded<{ actor: string; via: "console" }>;

export const consoleActor = ({ operator }: SignedIn) => ({ actor: operator.email, via: "console" }) as Actor;
/** The tests' actor, and a machine whose user cannot be read. */
export const commandActor: Actor = { actor: "command", via: "command" };

function machineUser() {
  try {
    return userInfo().username || commandActor.actor;
  } catch {
    return commandActor.actor;
  }
}

export function commandActorAs(as: string | undefined, user: () => string = machineUser): Actor {
  return { actor: as === undefined ? user() : emailKey(parsed(operatorEmail, as)), via: "command" };
}

export const operatorEmail = z
  .string()
  .trim()
  .max(254, { error: "An email address has at most 254 characters" })
  .pipe(z.email({ error: "That is not an email address" }));

export const operatorRole = z.enum(operatorRoles, { error: `The role is one of ${operatorRoles.join(", ")}` });

/** Its message is theirs to read, and holds no one's data but what they typed; its code, a page's to say again. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly code: "invalid" | "exists" | "unknown" | "last owner" = "invalid",
  ) {
    super(message);
  }
}

const parsed = <T>(schema: z.ZodType<T>, value: unknown) => {
  const result = schema.safeParse(value);
  if (!result.success) throw new OperatorError(result.error.issues[0]!.message);
  return result.data;
};

async function named(store: Store, email: string) {
  const address = emailKey(parsed(operatorEmail, email));
  const operator = await operatorByEmail(store, address);
  if (!operator) throw new OperatorError(`${address} is not an operator`, "unknown");
  return operator;
}

/** With none, setup would open again. */
async function refuseLastOwner(store: Store, operator: Operator) {
  if (operator.role !== "owner") return;
  const owners = (await listOperators(store)).filter((other) => other.role === "owner");
  if (owners.length === 1)
    throw new OperatorError(`${operator.email} is the last owner: add another owner first`, "last owner");
}

export const enrolmentUrl = (token: string) => new URL(`/console/enrol/${token}`, siteUrl()).toString();

export async function addOperator(
  store: Store,
  { email, role, by }: { email: string; role: OperatorRole | string; by: Actor },
) {
  const address = emailKey(parsed(operatorEmail, email));
  const chosen = parsed(operatorRole, role);
  return inTransaction(store, async (tx) => {
    const operator = await insertOperator(tx, { email: address, role: chosen });
    if (!operator) throw new OperatorError(`${address} is already an operator`, "exists");
    const link = await insertLink(tx, { operatorId: operator.id });
    await insertActivity(tx, { ...by, action: "operator added", subject: `${operator.email} (${chosen})`, rows: 1 });
    return { operator, link: { url: enrolmentUrl(link.token), expiresAt: link.expiresAt } };
  });
}

/** The ones before it stay good until they run out. */
export async function issueLink(store: Store, { email, by }: { email: string; by: Actor }) {
  return inTransaction(store, async (tx) => {
    const operator = await named(tx, email);
    const link = await insertLink(tx, { operatorId: operator.id });
    await insertActivity(tx, { ...by, action: "link issued", subject: operator.email, rows: 1 });
    return { operator, link: { url: enrolmentUrl(link.token), expiresAt: link.expiresAt } };
  });
}

/** The last owner stays an owner. */
export async function changeRole(
  store: Store,
  { email, role, by }: { email: string; role: OperatorRole | string; by: Actor },
) {
  const chosen = parsed(operatorRole, role);
  return inTransaction(store, async (tx) => {
    const operator = await named(tx, email);
    if (operator.role === chosen) return operator;
    await refuseLastOwner(tx, operator);
    await setRole(tx, operator.id, chosen);
    await insertActivity(tx, { ...by, action: "role changed", subject: `${operator.email} (${chosen})`, rows: 1 });
    return { ...operator, role: chosen } satisfies Operator;
  });
}

/** A console they have open stops at its next request. The last owner stays. */
export async function removeOperator(store: Store, { email, by }: { email: string; by: Actor }) {
  return inTransaction(store, async (tx) => {
    const operator = await named(tx, email);
    await refuseLastOwner(tx, operator);
    await deleteOperator(tx, operator.id);
    await insertActivity(tx, { ...by, action: "operator removed", subject: operator.email, rows: 1 });
    return operator satisfies Operator;
  });
}

export { listOperators };
