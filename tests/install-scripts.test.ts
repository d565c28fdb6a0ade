import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// npm 12 runs a dependency's install script only when package.json's allowScripts allows it, and npm 11.16 and later
// already skip the ones it denies: each package of the lockfile that has one is named there, allowed or denied by
// decision (docs/decisions/0016-install-scripts.md), so no install depends on npm's default.

type Locked = { name?: string; version?: string; hasInstallScript?: boolean };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, Locked> };
const { allowScripts } = JSON.parse(readFileSync("package.json", "utf8")) as { allowScripts: Record<string, boolean> };

/** What npm matches a policy entry against: the package's own name (an alias's `name` in the lockfile) and version. */
const withInstallScripts = Object.entries(lock.packages)
  .filter(([location, entry]) => location !== "" && entry.hasInstallScript)
  .map(([location, entry]) => ({
    name: entry.name ?? location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length),
    version: entry.version!,
  }));

const names = (entry: string, { name, version }: { name: string; version: string }) =>
  entry === name || entry === `${name}@${version}`;

describe("package.json's allowScripts", () => {
  it("names every locked package that has an install script, by its name or its exact version", () => {
    expect(withInstallScripts.length).toBeGreaterThan(0);
    const unnamed = withInstallScripts.filter((locked) => !Object.keys(allowScripts).some((key) => names(key, locked)));
    expect(unnamed).toStrictEqual([]);
  });

  it("names nothing the lockfile does not install with an install script", () => {
    const stale = Object.keys(allowScripts).filter((key) => !withInstallScripts.some((locked) => names(key, locked)));
    expect(stale).toStrictEqual([]);
  });
});
