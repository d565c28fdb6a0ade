import { describe, expect, it } from "vitest";
import { groupSync, postgresTarget } from "./connect";

describe("groupSync", () => {
  it("runs once for a lone caller, and again for the next", async () => {
    let runs = 0;
    const durable = groupSync(async () => {
      runs += 1;
    });
    await durable();
    await durable();
    expect(runs).toBe(2);
  });

  it("makes callers that arrive during a run wait for one more run, which they share", async () => {
    const started: (() => void)[] = [];
    const durable = groupSync(() => new Promise<void>((resolve) => started.push(resolve)));
    const first = durable();
    const laters = [durable(), durable(), durable()];
    expect(started).toHaveLength(1);
    let latersDone = false;
    void Promise.all(laters).then(() => (latersDone = true));
    started[0]!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The first run may have begun before their commits: they wait for a second one.
    expect(started).toHaveLength(2);
    expect(latersDone).toBe(false);
    started[1]!();
    await Promise.all(laters);
    expect(started).toHaveLength(2);
  });

  it("passes a failed run on to its callers, and the next caller starts afresh", async () => {
    let fail = true;
    const durable = groupSync(async () => {
      if (fail) throw new Error("EIO");
    });
    await expect(durable()).rejects.toThrow("EIO");
    fail = false;
    await expect(durable()).resolves.toBeUndefined();
  });
});

describe("postgresTarget", () => {
  it("names the host and database, never the user or password", () => {
    expect(postgresTarget("postgres://sous:s3cret@db.example.com:5432/leads?sslmode=require")).toBe("db.example.com:5432/leads");
  });
});
