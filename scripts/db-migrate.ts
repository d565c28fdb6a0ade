/**
 * `npm run db:migrate`: runs the committed migrations on the database the server's env points at (DATABASE_URL, else
 * SQLite under DATA_DIR). The server also runs them when it starts; this is for a release step that migrates before the
 * new version takes traffic.
 */
import "./load-env";
import { closeDatabases, database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { databaseLine } from "./database-line";
import { escapeControls } from "@/server/escape-controls.mjs";

const env = readEnv();
console.error(databaseLine(env));
database(env)
  .then(async ({ db }) => {
    const applied = await db
      .selectFrom("kysely_migration" as never)
      .select("name" as never)
      .execute();
    console.log(`${databaseLine(env)}: ${applied.length} migrations applied, up to date`);
  })
  .catch((error: unknown) => {
    // A message may carry a table's or a setting's text as the database gave it: shown, never acted on by a terminal.
    console.error(escapeControls(error instanceof Error ? error.message : String(error), "\n"));
    process.exitCode = 1;
  })
  .finally(closeDatabases);
