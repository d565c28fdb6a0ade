import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";

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
