/**
 * `npm run db:migrate`: runs the committed migrations on the database the
 * server's env points at (DATABASE_URL, else SQLite under DATA_DIR). The
 * server also runs them when it starts; this is for a release step that
 * migrates before the new version takes traffic.
 */
import { closeDatabases, database, postgresTarget, sqliteFile } from "@/server/db/connect";
import { readEnv } from "@/server/env";

const env = readEnv();
database(env)
  .then(async ({ db, engine }) => {
    const applied = await db.selectFrom("kysely_migration" as never).select("name" as never).execute();
    const at = env.DATABASE_URL ? postgresTarget(env.DATABASE_URL) : sqliteFile(env.DATA_DIR);
    console.log(`${engine} at ${at}: ${applied.length} migrations applied, up to date`);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  })
  .finally(closeDatabases);
