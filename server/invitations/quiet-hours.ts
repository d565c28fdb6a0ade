import "server-only";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import type { SendingHours } from "@/server/env";
import data from "./number-zones.json";

// An invitation goes out only inside the sending hours of every time zone its number could be in.

const zonesAt = (indexes: readonly number[]) => indexes.map((i) => data.zones[i]!);
const prefixes: Record<string, number[]> = data.prefixes;
const regions: Record<string, number[]> = data.regions;
const callingCodes: Record<string, number[]> = data.callingCode;

/**
 * Its prefix in libphonenumber's map, else every zone of its region (a new area code), else every zone of its calling
 * code (for +1, Guam to Bermuda: in effect never inside the window).
 */
export function zonesOf(phone: string): { zones: string[]; from: "prefix" | "region" | "calling code" | "none" } {
  const digits = phone.replace(/^\+/, "");
  for (let length = digits.length; length > 0; length -= 1) {
    const found = prefixes[digits.slice(0, length)];
    if (found) return { zones: zonesAt(found), from: "prefix" };
  }
  const parsed = parsePhoneNumberFromString(phone);
  const region = parsed?.country && regions[parsed.country];
  if (region) return { zones: zonesAt(region), from: "region" };
  const country = parsed && callingCodes[parsed.countryCallingCode];
  if (country) return { zones: zonesAt(country), from: "calling code" };
  return { zones: [], from: "none" };
}

const formats = new Map<string, Intl.DateTimeFormat>();

function localMinutes(zone: string, at: number) {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "numeric", minute: "numeric", hourCycle: "h23" });
    formats.set(zone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part("hour") * 60 + part("minute");
}

const inside = (zones: readonly string[], at: number, hours: SendingHours) =>
  zones.length > 0 &&
  zones.every((zone) => {
    const minutes = localMinutes(zone, at);
    return minutes >= hours.from * 60 && minutes < hours.to * 60;
  });

const QUARTER_HOUR = 15 * 60_000;
const LOOK_AHEAD_MS = 8 * 24 * 60 * 60_000;

/** Undefined when no quarter hour within a week is inside the hours in every zone. */
export function sendingTime(
  zones: readonly string[],
  now: number,
  hours: SendingHours,
): { open: true } | { open: false; opensAt: number | undefined } {
  if (inside(zones, now, hours)) return { open: true };
  for (let at = Math.ceil((now + 1) / QUARTER_HOUR) * QUARTER_HOUR; at < now + LOOK_AHEAD_MS; at += QUARTER_HOUR)
    if (inside(zones, at, hours)) return { open: false, opensAt: at };
  return { open: false, opensAt: undefined };
}
