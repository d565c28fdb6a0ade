import { describe, expect, it } from "vitest";
import { addressKey, clientAddress } from "./client-address";

describe("clientAddress", () => {
  it("takes the right-most entry: the one our own proxy wrote", () => {
    expect(clientAddress("203.0.113.7", 1)).toBe("203.0.113.7");
    // A client that sends its own X-Forwarded-For cannot choose its bucket.
    expect(clientAddress("10.0.0.1, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(clientAddress(" 1.1.1.1 ,2.2.2.2,  203.0.113.7 ", 1)).toBe("203.0.113.7");
  });

  it("steps one entry left per extra trusted proxy", () => {
    expect(clientAddress("10.0.0.1, 203.0.113.7, 172.16.0.2", 2)).toBe("203.0.113.7");
    expect(clientAddress("203.0.113.7, 172.16.0.2, 172.16.0.3", 3)).toBe("203.0.113.7");
  });

  it("falls back to the left-most entry when there are fewer entries than hops", () => {
    expect(clientAddress("203.0.113.7", 2)).toBe("203.0.113.7");
  });

  it("puts requests without the header in one shared bucket", () => {
    expect(clientAddress(null, 1)).toBe("unknown");
    expect(clientAddress("", 1)).toBe("unknown");
  });

  it("keeps IPv6 addresses whole", () => {
    expect(clientAddress("2001:db8::1", 1)).toBe("2001:db8::1");
  });
});

describe("addressKey", () => {
  it("keys IPv6 by its /64, however the address is written", () => {
    const key = addressKey("2001:db8:1:2::1");
    expect(key).toBe("2001:db8:1:2::/64");
    for (const sameNetwork of ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0DB8:0001:0002:0:0:0:9", "[2001:db8:1:2::abcd]", "2001:db8:1:2::1%eth0"]) {
      expect(addressKey(sameNetwork), sameNetwork).toBe(key);
    }
    expect(addressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keys an IPv4-mapped IPv6 address as the plain IPv4 address", () => {
    for (const spelling of ["::ffff:203.0.113.9", "::FFFF:203.0.113.9", "0:0:0:0:0:ffff:203.0.113.9", "::ffff:cb00:7109", "203.0.113.9"]) {
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
