import { readEnv } from "@/server/env";

export function addressSource(trustedHops: number) {
  if (trustedHops > 0) return "x-forwarded-for" as const;
  // Named by `npm start` at start; absent under plain `next start` or `next dev`.
  return readEnv().SOUS_SOCKET_ADDRESS_HEADER ? ("socket" as const) : ("unavailable" as const);
}

/**
 * No proxy: the connection's own address, which `npm start` passes in a header; X-Forwarded-For is the client's and
 * ignored. Behind n proxies: the entry n from the right of X-Forwarded-For, written by a proxy we trust.
 */
export function clientAddress(headers: Pick<Headers, "get">, trustedHops: number) {
  if (trustedHops === 0) {
    const header = readEnv().SOUS_SOCKET_ADDRESS_HEADER;
    // A dual-stack socket reports an IPv4 visitor as ::ffff:203.0.113.9; the record keeps 203.0.113.9.
    return (header && headers.get(header)?.replace(/^::ffff:(?=\d{1,3}(?:\.\d{1,3}){3}$)/i, "")) || "unknown";
  }
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries[entries.length - trustedHops] ?? entries[0] ?? "unknown";
}

function ipv6Groups(address: string) {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const split = (half: string | undefined) => (half ? half.split(":") : []);
  const head = split(halves[0]);
  const tail = split(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  return groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))
    ? groups.map((group) => parseInt(group, 16))
    : undefined;
}

/** An IPv6 address by its /64: one subscriber usually gets a whole /64 and picks any address in it at will. */
export function addressKey(address: string) {
  const plain = address
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(plain);
  if (mapped?.[1]) return mapped[1];
  const groups = ipv6Groups(plain);
  if (!groups) return plain;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}
