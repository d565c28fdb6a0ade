import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { serialisedZones, zonesFile } from "./number-zones";

describe("server/invitations/number-zones.json", () => {
  it("is what npm run zones:build makes of libphonenumber's time zone map (run it after updating the package)", () => {
    expect(readFileSync(zonesFile, "utf8")).toBe(serialisedZones());
  });
});
