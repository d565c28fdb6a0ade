/**
 * Numbers whose sending hours are open now, for browser specs that run at
 * any hour on a real clock (the server's pass reads it, and n8n checks the
 * signatures' timestamps against it). Each candidate's area code has one time
 * zone in libphonenumber's map; between them, 8:00-21:00 local is open
 * somewhere at every hour of the year.
 */
export const candidates = [
  { prefix: "+1212", zone: "America/New_York", country: "US" },
  { prefix: "+1312", zone: "America/Chicago", country: "US" },
  { prefix: "+1303", zone: "America/Denver", country: "US" },
  { prefix: "+1415", zone: "America/Los_Angeles", country: "US" },
  { prefix: "+1808", zone: "Pacific/Honolulu", country: "US" },
  { prefix: "+1671", zone: "Pacific/Guam", country: "GU" },
  { prefix: "+442079460", zone: "Europe/London", country: "GB" },
  { prefix: "+49301234", zone: "Europe/Berlin", country: "DE" },
  // Two hours ahead of London in every season: near the top of an hour, when every zone above crosses into the
  // next at once, London and Athens still give splitHours two zones two hours apart (a clean clone's run at
  // 11:55 UTC found only London and Berlin, one hour apart, and no split).
  { prefix: "+302105550", zone: "Europe/Athens", country: "GR" },
] as const;

/** The hours the specs set (INVITE_HOURS). */
export const specHours = { from: 8, to: 21 };
/** The countries the specs' sign-up form must take for the candidates (WAITLIST_PHONE_COUNTRIES). */
export const specCountries = [...new Set(["US", "CA", ...candidates.map((candidate) => candidate.country)])].join(",");

const formats = new Map<string, Intl.DateTimeFormat>();
const localHour = (zone: string, at: number) => {
  if (!formats.has(zone))
    formats.set(zone, new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "numeric", hourCycle: "h23" }));
  return Number(formats.get(zone)!.format(at));
};
type Hours = { from: number; to: number };
const open = (zone: string, at: number, hours: Hours) =>
  localHour(zone, at) >= hours.from && localHour(zone, at) < hours.to;

/** A prefix whose zone stays inside the hours for the next `minutes`; numbers are it plus digits to E.164's length. */
export function openPrefix(minutes: number, hours: Hours = specHours, now = Date.now()) {
  const found = candidates.find(({ zone }) => open(zone, now, hours) && open(zone, now + minutes * 60_000, hours));
  if (!found) throw new Error("no candidate zone is open now: add one");
  return found;
}

/** A prefix whose zone stays outside the hours for the next `minutes`. */
export function closedPrefix(minutes: number, hours: Hours = specHours, now = Date.now()) {
  const found = candidates.find(({ zone }) => !open(zone, now, hours) && !open(zone, now + minutes * 60_000, hours));
  if (!found) throw new Error("every candidate zone is open now");
  return found;
}

/**
 * The nth number under a prefix: 555 numbers for +1 (up to 9,999), Ofcom's
 * drama range 020 7946 0XXX for London, 030 1234 XXX for Berlin, 210 5550 XXX
 * for Athens (up to 999). They reach only the tests' stand-in for Twilio.
 */
export const numberUnder = (prefix: string, n: number) =>
  prefix.startsWith("+1") ? `${prefix}555${String(n).padStart(4, "0")}` : `${prefix}${String(n).padStart(3, "0")}`;

/**
 * Two candidate zones and narrower hours that keep one open and the other
 * closed for the next `minutes`, while the specs' own hours (specHours) open
 * both: numbers that wait for their hours under `narrow`, and are sent once
 * the site is back on specHours.
 */
export function splitHours(minutes: number, now = Date.now()) {
  const steady = (zone: string, hours: Hours) =>
    open(zone, now, hours) === open(zone, now + minutes * 60_000, hours) ? open(zone, now, hours) : undefined;
  const inSpec = candidates.filter(({ zone }) => steady(zone, specHours) === true);
  for (let from = specHours.from; from < specHours.to; from += 1)
    for (let to = from + 1; to <= specHours.to; to += 1) {
      const narrow = { from, to };
      const opened = inSpec.find(({ zone }) => steady(zone, narrow) === true);
      const waiting = inSpec.find(({ zone }) => steady(zone, narrow) === false);
      if (opened && waiting) return { opened, waiting, narrow };
    }
  throw new Error("no two candidate zones are open at different hours now: add one");
}
