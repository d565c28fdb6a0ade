import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The scores of the parts of a whole run, together (tests/mutation/parts.sh). */
const run = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "sous-folders-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const mutants = (statuses: Record<string, number>) =>
  Object.entries(statuses).flatMap(([status, count]) => Array.from({ length: count }, () => ({ status })));

async function report(name: string, files: Record<string, Record<string, number>>) {
  const file = path.join(dir, name);
  const json = Object.fromEntries(
    Object.entries(files).map(([source, statuses]) => [source, { mutants: mutants(statuses) }]),
  );
  await writeFile(file, JSON.stringify({ files: json }));
  return file;
}

async function scores(...reports: string[]) {
  try {
    const { stdout } = await run(process.execPath, ["tests/mutation/folders.mjs", ...reports]);
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

const line = (stdout: string, name: string) =>
  stdout
    .split("\n")
    .find((row) => row.startsWith(`${name} `))
    ?.replace(/\s+/g, " ");

describe("the folders' scores of several reports", () => {
  it("counts every file of the parts once, the last part's when two hold it, against the bars", async () => {
    const first = await report("1.json", {
      "server/db/connect.ts": { Killed: 8, Survived: 2 },
      "server/outbox/alerts.ts": { Killed: 1, Survived: 9 },
    });
    const second = await report("2.json", {
      "server/outbox/alerts.ts": { Killed: 9, Timeout: 1, NoCoverage: 0 },
      "lib/forms/phone.ts": { Killed: 4, NoCoverage: 1, Ignored: 3 },
    });

    const together = await scores(first, second);
    expect(line(together.stdout, "server/db")).toBe("server/db 80.00% 8 detected 2 missed");
    expect(line(together.stdout, "server/outbox")).toBe("server/outbox 100.00% 10 detected 0 missed");
    expect(line(together.stdout, "lib/forms")).toBe("lib/forms 80.00% 4 detected 1 missed");
    expect(line(together.stdout, "all")).toBe("all 88.00% 22 detected 3 missed");
    expect(together.code).toBe(0);

    // The first alone: alerts at 10% is under its bar, and so is the whole.
    const alone = await scores(first);
    expect(line(alone.stdout, "server/outbox")).toBe("server/outbox 10.00% 1 detected 9 missed < 80%");
    expect(line(alone.stdout, "all")).toBe("all 45.00% 9 detected 11 missed < 85%");
    expect(alone.code).toBe(1);
  });
});
