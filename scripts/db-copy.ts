/** `npm run db:copy [-- --to-sqlite]`: see scripts/db-copy-command.ts, and docs/operating.md, "Moving to Postgres". */
import "./load-env";
import { readEnv } from "@/server/env";
import { copyDatabase, copiedTables, type Side } from "./db-copy-command";
import { databaseLine } from "./database-line";
import { escapeControls } from "@/server/escape-controls.mjs";

const env = readEnv();
const args = process.argv.slice(2);
const back = args.includes("--to-sqlite");
if (args.some((arg) => arg !== "--to-sqlite") || !env.DATABASE_URL) {
  console.error(
    "db:copy copies the SQLite file of DATA_DIR into the Postgres of DATABASE_URL, or with --to-sqlite that Postgres into a new SQLite file in DATA_DIR: set DATABASE_URL (docs/operating.md)",
  );
  process.exit(1);
}
const sqlite: Side = { engine: "sqlite", dataDir: env.DATA_DIR };
const postgres: Side = { engine: "postgres", url: env.DATABASE_URL };
const lines = {
  sqlite: databaseLine({ DATA_DIR: env.DATA_DIR, DATABASE_URL: undefined }),
  postgres: databaseLine(env),
};
console.error(back ? `from ${lines.postgres} to ${lines.sqlite}` : `from ${lines.sqlite} to ${lines.postgres}`);
copyDatabase(back ? { from: postgres, to: sqlite } : { from: sqlite, to: postgres })
  .then((copied) => {
    for (const { name } of copiedTables) console.log(`${name.padEnd(20)} ${copied[name]}`);
    console.log(
      back
        ? "Copied, counts verified. Unset DATABASE_URL and restart the server; keep the Postgres database as a backup."
        : "Copied, counts verified. Keep DATABASE_URL set and restart the server; keep the SQLite file as a backup.",
    );
  })
  .catch((error: unknown) => {
    // A message may carry a table's or a setting's text as the database gave it: shown, never acted on by a terminal.
    console.error(escapeControls(error instanceof Error ? error.message : String(error), "\n"));
    process.exitCode = 1;
  });
