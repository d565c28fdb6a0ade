import { afterEach, describe, expect, it, vi } from "vitest";
import { addressKey, addressSource, clientAddress } from "./client-address";

const forwarded = (value: string | null, more: Record<string, string> = {}) =>
  new Headers({ ...(value === null ? {} : { "x-forwarded-for": value }), ...more });
// The header `npm start` names at start (scripts/start.mjs).
const socketHeader = "x-sous-socket-test0123456789ab";

describe("clientAddress", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("takes the right-most entry: the one our own proxy wrote", () => {
    expect(clientAddress(forwarded("203.0.113.7"), 1)).toBe("203.0.113.7");
    // A client that sends its own X-Forwarded-For cannot choose its bucket.
    expect(clientAddress(forwarded("10.0.0.1, 203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientAddress(forwarded(" 1.1.1.1 ,2.2.2.2,  203.0.113.7 "), 1)).toBe("203.0.113.7");
  });

  it("steps one entry left per extra trusted proxy", () => {
    expect(clientAddress(forwarded("10.0.0.1, 203.0.113.7, 172.16.0.2"), 2)).toBe("203.0.113.7");
    expect(clientAddress(forwarded("203.0.113.7, 172.16.0.2, 172.16.0.3"), 3)).toBe("203.0.113.7");
  });

  it("falls back to the left-most entry when there are fewer entries than hops", () => {
    expect(clientAddress(forwarded("203.0.113.7"), 2)).toBe("203.0.113.7");
  });

  it("puts requests without the header in one shared bucket", () => {
    expect(clientAddress(forwarded(null), 1)).toBe("unknown");
    expect(clientAddress(forwarded(""), 1)).toBe("unknown");
  });

  it("keeps IPv6 addresses whole", () => {
    expect(clientAddress(forwarded("2001:db8::1"), 1)).toBe("2001:db8::1");
  });

  it("with no proxy, takes the connection's address npm start passed on, whatever X-Forwarded-For says", () => {
    vi.stubEnv("SOUS_SOCKET_ADDRESS_HEADER", socketHeader);
    const request = forwarded("203.0.113.77", { [socketHeader]: "198.51.100.4" });
    expect(clientAddress(request, 0)).toBe("198.51.100.4");
    // The same request, read as one proxy back, believes the header: the set-up 0 is for.
    expect(clientAddress(request, 1)).toBe("203.0.113.77");
    expect(addressSource(0)).toBe("socket");
    // What a server listening on every interface reports for an IPv4 visitor, kept as IPv4; IPv6 as it is.
    expect(clientAddress(forwarded(null, { [socketHeader]: "::ffff:198.51.100.4" }), 0)).toBe("198.51.100.4");
    expect(clientAddress(forwarded(null, { [socketHeader]: "::FFFF:198.51.100.4" }), 0)).toBe("198.51.100.4");
    expect(clientAddress(forwarded(null, { [socketHeader]: "2001:db8::ffff:1" }), 0)).toBe("2001:db8::ffff:1");
    expect(clientAddress(forwarded(null, { [socketHeader]: "2001:db8::ffff:198.51.100.4" }), 0)).toBe(
      "2001:db8::ffff:198.51.100.4",
    );
    expect(clientAddress(forwarded(null, { [socketHeader]: "::ffff:1:2" }), 0)).toBe("::ffff:1:2");
    expect(addressSource(1)).toBe("x-forwarded-for");
  });

  it("with no proxy and no address from npm start, believes no header: every visitor is unknown", () => {
    const request = forwarded("203.0.113.77", { [socketHeader]: "198.51.100.4" });
    expect(clientAddress(request, 0)).toBe("unknown");
    expect(addressSource(0)).toBe("unavailable");
    // Named, but absent from the request: unknown too, never the forwarded header.
    vi.stubEnv("SOUS_SOCKET_ADDRESS_HEADER", socketHeader);
    expect(clientAddress(forwarded("203.0.113.77"), 0)).toBe("unknown");
  });
});

describe("addressKey", () => {
  it("keys IPv6 by its /64, however the address is written", () => {
    const key = addressKey("2001:db8:1:2::1");
    expect(key).toBe("2001:db8:1:2::/64");
    for (const sameNetwork of [
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0DB8:0001:0002:0:0:0:9",
      "[2001:db8:1:2::abcd]",
      "2001:db8:1:2::1%eth0",
    ]) {
      expect(addressKey(sameNetwork), sameNetwork).toBe(key);
    }
    expect(addressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keys an IPv4-mapped IPv6 address as the plain IPv4 address", () => {
    for (const spelling of [
      "::ffff:203.0.113.9",
      "::FFFF:203.0.113.9",
      "0:0:0:0:0:ffff:203.0.113.9",
      "::ffff:cb00:7109",
      "203.0.113.9",
    ]) {
      expect(addressKey(spelling), spelling).toBe("203.0.113.9");
    }
  });

  it("reads every legal spelling of eight groups", () => {
    expect(addressKey("1:2:3:4:5:6:7:8")).toBe("1:2:3:4::/64");
    expect(addressKey("1:2:3:4:5:6::8")).toBe("1:2:3:4::/64");
    // Zeros then ffff only as the first six groups make an IPv4-mapped address.
    expect(addressKey("1::ffff:0:1")).toBe("1:0:0:0::/64");
  });

  it("keeps anything else as it is", () => {
    for (const other of [
      "unknown",
      "1:2:3",
      "1:2:3:4:5:6:7",
      "1::2::3",
      "1:2:3:4:5:6:7::8",
      "12345::1",
      "zz1::1",
      "1zz::1",
      "x::ffff:203.0.113.9",
      "::ffff:203.0.113.9.1",
    ]) {
      expect(addressKey(other), other).toBe(other);
    }
  });
});
