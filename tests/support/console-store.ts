import type { Store } from "@/server/db/connect";
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
