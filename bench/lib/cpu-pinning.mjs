import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { readdirSync, readFileSync } from "node:fs";

/**
 * Pins the app's servers to every core but the last, and the load generator
 * (this process) and the webhook receiver to the last one, for the sign-up
 * loads. Unpinned on a 2-core machine, autocannon, the receiver and the app's
 * own thread pool take turns with the app's JavaScript thread, and a change
 * that moves work off that thread (a thread-pool fsync instead of a
 * synchronous one) measured no better than the synchronous one; pinned, it
 * measured as it behaves on a server with its load elsewhere. Returns the
 * undo; does nothing where `taskset` or a second core is missing.
 *
 * @param {{ servers: (number | undefined)[], helpers: (number | undefined)[] }} groups process-group ids
 * @returns {{ pinned: boolean, restore: () => void }}
 */
export function pinApart({ servers, helpers }) {
  const cores = availableParallelism();
  if (cores < 2 || !hasTaskset()) return { pinned: false, restore: () => {} };
  const all = `0-${cores - 1}`;
  const serverPids = servers.flatMap(groupMembers);
  const helperPids = [process.pid, ...helpers.flatMap(groupMembers)];
  setAffinity(serverPids, cores === 2 ? "0" : `0-${cores - 2}`);
  setAffinity(helperPids, String(cores - 1));
  return {
    pinned: true,
    restore: () => setAffinity([...serverPids, ...helperPids], all),
  };
}

function hasTaskset() {
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Every process of a process group (the bench starts each server in its own). */
function groupMembers(pgid) {
  if (!pgid) return [];
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // The field after the command's closing parenthesis: state, ppid, pgrp.
        return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function setAffinity(pids, cpus) {
  for (const pid of pids) {
    try {
      // -a: every thread of the process (V8's and libuv's included).
      execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
    } catch {
      // A process that has exited meanwhile has nothing to pin.
    }
  }
}
