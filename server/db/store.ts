import type { Kysely } from "kysely";
import type { Database } from "./schema";

export type Engine = "sqlite" | "postgres";

/** An open database, whichever engine: the Kysely handle, and how to wait for what it committed to be on disk. */
export type Store = {
  db: Kysely<Database>;
  engine: Engine;
  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void>;
};

/**
 * Runs `work` in one transaction of `store`, handing it the same kind of
 * handle every owner function takes: a Store whose queries are the
 * transaction's. Owners never take a raw Kysely, so a caller never converts one.
 */
export function inTransaction<T>(store: Store, work: (tx: Store) => Promise<T>): Promise<T> {
  return store.db.transaction().execute((db) => work({ ...store, db }));
}
