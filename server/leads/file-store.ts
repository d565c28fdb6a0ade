import "server-only";
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseLead, type Lead } from "./lead";
import type { LeadStore } from "./store";

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";
const exists = (error: unknown) => (error as NodeJS.ErrnoException).code === "EEXIST";

/**
 * Writes a file that a reader sees whole or not at all: a temporary name in
 * the same folder, fsync, then a rename (or a link, which refuses to replace).
 * Readable by the server's user only: the file holds a visitor's details.
 *
 * Synchronous on purpose: seven system calls of about 1.3 ms together (the
 * fsync is most of it), measured here, against about 3 ms through the thread
 * pool, where each call waits its turn behind the others' fsyncs under load.
 */
function writeWhole(file: string, text: string, replace: boolean) {
  const temporary = `${file}.${randomUUID()}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (replace) renameSync(temporary, file);
    else linkSync(temporary, file);
  } finally {
    if (!replace) rmSync(temporary, { force: true });
  }
}

/** Folders this process has made already: one mkdir per folder, not one per lead. */
const madeFolders = new Set<string>();

/** One JSON file per lead: `<dir>/<key>.json`; a lease is `<key>.lease`. */
export function fileLeadStore(dir: string): LeadStore {
  const fileOf = (key: string) => path.join(dir, `${key}.json`);
  const leaseOf = (key: string) => path.join(dir, `${key}.lease`);
  const ready = () => {
    if (madeFolders.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    madeFolders.add(dir);
  };
  const read = async (file: string) => {
    try {
      return parseLead(await readFile(file, "utf8"));
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  };

  const store: LeadStore = {
    async add(lead) {
      ready();
      try {
        writeWhole(fileOf(lead.key), JSON.stringify(lead), false);
        return lead;
      } catch (error) {
        if (missing(error)) {
          // The folder went away under a running server: make it again, once.
          madeFolders.delete(dir);
          ready();
          writeWhole(fileOf(lead.key), JSON.stringify(lead), false);
          return lead;
        }
        if (!exists(error)) throw error;
        return (await read(fileOf(lead.key))) ?? lead;
      }
    },
    get: (key) => read(fileOf(key)),
    async update(lead) {
      if (!(await read(fileOf(lead.key)))) return;
      writeWhole(fileOf(lead.key), JSON.stringify(lead), true);
    },
    async remove(key) {
      rmSync(fileOf(key), { force: true });
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
      // Temporary files and leases are not leads; an unreadable file is skipped.
      const leads = await Promise.all(names.filter((name) => /^[0-9a-f]{64}\.json$/.test(name)).map((name) => read(path.join(dir, name))));
      return leads.filter((lead): lead is Lead => lead !== undefined);
    },
    async lease(key, ms) {
      ready();
      for (let tries = 0; tries < 2; tries += 1) {
        try {
          await writeFile(leaseOf(key), String(Date.now() + ms), { flag: "wx", mode: 0o600 });
          return true;
        } catch (error) {
          if (!exists(error)) throw error;
          // A lease outlives its holder only when that process died: take it over once it expired.
          const expires = Number(await readFile(leaseOf(key), "utf8").catch(() => "0"));
          const age = await stat(leaseOf(key)).then((info) => Date.now() - info.mtimeMs, () => Infinity);
          if (Date.now() < expires && age < ms) return false;
          await unlink(leaseOf(key)).catch(() => {});
        }
      }
      return false;
    },
    async release(key) {
      await unlink(leaseOf(key)).catch(() => {});
    },
  };
  return store;
}
