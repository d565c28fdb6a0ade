import { beforeEach, describe, expect, it, vi } from "vitest";
import { probeFailingReceivers, type FailingReceivers, type ProbeKind } from "./probe";

/**
 * The probe's loop alone, driven by a kind written here. How each kind
 * sends its row, and that the alerts' store's claim lets one instance probe
 * a minute, is tested through the schedule's tasks (server/ops/probe.test.ts).
 */

const lines = { info: [] as string[], warn: [] as string[] };
beforeEach(() => {
  lines.info = [];
  lines.warn = [];
  vi.spyOn(console, "info").mockImplementation((line: string) => void lines.info.push(line));
  vi.spyOn(console, "warn").mockImplementation((line: string) => void lines.warn.push(line));
});

/** Receivers failing as named; the claim granted to those in `claimable`, each claim asked kept. */
function receivers(failing: string[], claimable = failing) {
  const asked: string[] = [];
  const store: FailingReceivers = {
    failing: async () => failing.map((form) => ({ form })),
    claim: async (form) => {
      asked.push(form);
      return claimable.includes(form);
    },
  };
  return { store, asked };
}

/** A kind owning `owned`, answering each probe as `outcomes` says; the receivers it was asked to probe kept. */
function kind(owned: string[], outcomes: Record<string, { state: string; answered: boolean } | undefined>) {
  const probed: string[] = [];
  const probe: ProbeKind = {
    owns: (receiver) => owned.includes(receiver),
    probe: async (receiver) => {
      probed.push(receiver);
      return outcomes[receiver];
    },
  };
  return { probe, probed };
}

describe("probeFailingReceivers", () => {
  it("probes each failing receiver of its kind that it could claim, and says what became of each", async () => {
    const { store, asked } = receivers(["contact", "waitlist", "invitations"]);
    const { probe, probed } = kind(["contact", "waitlist"], {
      contact: { state: "delivered", answered: true },
      waitlist: { state: "pending", answered: false },
    });
    expect(await probeFailingReceivers(store, probe)).toStrictEqual([
      { form: "contact", state: "delivered" },
      { form: "waitlist", state: "pending" },
    ]);
    // Another kind's receiver is neither claimed nor probed: its own task probes it.
    expect(asked).toStrictEqual(["contact", "waitlist"]);
    expect(probed).toStrictEqual(["contact", "waitlist"]);
    // An answered probe is news (info); one that failed again, a warning.
    expect(lines.info.map((line) => JSON.parse(line))).toMatchObject([
      { level: "info", event: "receiver_probed", form: "contact", outcome: "delivered" },
    ]);
    expect(lines.warn.map((line) => JSON.parse(line))).toMatchObject([
      { level: "warn", event: "receiver_probed", form: "waitlist", outcome: "pending" },
    ]);
  });

  it("leaves a receiver another instance claimed, and one with nothing to send unsaid", async () => {
    const { store, asked } = receivers(["contact", "waitlist"], ["waitlist"]);
    const { probe, probed } = kind(["contact", "waitlist"], { waitlist: undefined });
    expect(await probeFailingReceivers(store, probe)).toStrictEqual([]);
    expect(asked).toStrictEqual(["contact", "waitlist"]);
    expect(probed).toStrictEqual(["waitlist"]);
    expect([...lines.info, ...lines.warn]).toStrictEqual([]);
  });

  it("asks for no claim while no receiver fails", async () => {
    const { store, asked } = receivers([]);
    const { probe, probed } = kind(["contact"], {});
    expect(await probeFailingReceivers(store, probe)).toStrictEqual([]);
    expect([asked, probed]).toStrictEqual([[], []]);
  });
});
