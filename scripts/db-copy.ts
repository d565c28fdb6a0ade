/** `npm run db:copy`: see scripts/db-copy-command.ts, and docs/operating.md, "Moving to Postgres". */
import "./load-env";
import { readEnv } from "@/server/env";
import { copyDatabase, copiedTables } from "./db-copy-command";
import { databaseLine } from "./database-line";

const env = readEnv();
if (!env.DATABASE_URL) {
  console.error(
    "db:copy copies the SQLite file of DATA_DIR into the Postgres of DATABASE_URL: set DATABASE_URL (docs/operating.md)",
  );
  process.exit(1);
}
console.error(`from ${databaseLine({ DATA_DIR: env.DATA_DIR, DATABASE_URL: undefined })} to ${databaseLine(env)}`);
copyDatabase({ dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL })
  .then((copied) => {
    for (const table of copiedTables) console.log(`${table.padEnd(20)} ${copied[table]}`);
    console.log(
      "Copied, counts verified. Keep DATABASE_URL set and restart the server; keep the SQLite file as a backup.",
    );
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
