/**
 * The console's reads at 100,000 sign-ups, for `npm run bench`: runs bench/console.ts (SQLite and a throwaway Postgres
 * of its own) in a process of its own and reads the one line of JSON it prints. Its log is bench/.runs/console.log.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { paths, quick } from "./config.mjs";

export function measureConsole() {
  const signups = quick ? "10000" : "100000";
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "bench/console.ts", signups, "--json"],
      { cwd: paths.root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.pipe(createWriteStream(`${paths.runs}console.log`));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bench/console.ts exited with ${code} (bench/.runs/console.log)`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)));
      } catch (error) {
        reject(new Error(`bench/console.ts printed no JSON: ${error.message}`));
      }
    });
  });
}
