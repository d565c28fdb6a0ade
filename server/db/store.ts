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
