import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { createRequire } from "node:module";
import { chromiumPath, paths } from "./config.mjs";

const require = createRequire(import.meta.url);

/** What the numbers were measured on: they mean little without it. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpu: `${cpus[0]?.model.trim() ?? "unknown"} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${osName()} (${os.type()} ${os.release()}, ${os.arch()})`,
    // A busy machine shows here before it shows in the numbers.
    loadAtStart: os.loadavg().map((load) => load.toFixed(2)).join(" / "),
    node: process.version,
    chromium: chromiumVersion(),
    next: packageVersion("next"),
    lighthouse: packageVersion("lighthouse"),
    commit: gitCommit(),
  };
}

function osName() {
  try {
    const release = readFileSync("/etc/os-release", "utf8");
    return release.match(/^PRETTY_NAME="?([^"\n]*)"?$/m)?.[1] ?? os.platform();
  } catch {
    return os.platform();
  }
}

function chromiumVersion() {
  try {
    // Debian's launcher script prints shell noise on stderr; the version is on stdout.
    return execFileSync(chromiumPath, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return `not found at ${chromiumPath}`;
  }
}

function packageVersion(name) {
  try {
    return require(`${name}/package.json`).version;
  } catch {
    return "not installed";
  }
}

function gitCommit() {
  try {
    const run = (...args) => execFileSync("git", args, { cwd: paths.root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty = run("status", "--porcelain", "--untracked-files=no") ? " (with uncommitted changes)" : "";
    return `${run("rev-parse", "--short", "HEAD")}${dirty}`;
  } catch {
    return "unknown";
  }
}
