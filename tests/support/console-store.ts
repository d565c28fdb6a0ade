import type { Store } from "@/server/db/connect";
import type { OperatorRole } from "@/server/db/schema";
import { signedInWith } from "@/server/console/session";
import { insertSession, operatorByEmail } from "@/server/operators/operator-store";
import { addOperator, commandActor, type SignedIn } from "@/server/operators/operators";
import type { setupBothEngines } from "./both-engines";

/**
 * A test file's database for `engine` (setupBothEngines), with no operator,
 * passkey ceremony or activity line left by a test before it: removing the
 * operators removes their passkeys, sessions and links with them.
 */
export function consoleStores(engines: ReturnType<typeof setupBothEngines>) {
  return async function open(engine: "sqlite" | "postgres"): Promise<Store> {
    const store = await engines(engine);
    await store.db.deleteFrom("operators").execute();
    await store.db.deleteFrom("console_challenges").execute();
    await store.db.deleteFrom("operator_activity").execute();
    return store;
  };
}

/** What the console's guard hands a page or a route: the operator (made if new) signed in, their session found. */
export async function signedInAs(store: Store, email: string, role: OperatorRole = "owner"): Promise<SignedIn> {
  const operator =
    (await operatorByEmail(store, email)) ?? (await addOperator(store, { email, role, by: commandActor })).operator;
  const signed = await signedInWith(store, await insertSession(store, { operatorId: operator.id }));
  if (!signed) throw new Error(`no session found for ${email}`);
  return signed;
}
