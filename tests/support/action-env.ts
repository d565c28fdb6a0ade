import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, vi } from "vitest";

/**
 * The environment of a form action's unit test: the form's webhook pointed at
 * the test's receiver, a short deadline and quick retries so failures are
 * quick, and the log lines kept out of the test output (a test that reads
 * them spies on console itself).
 */
export function stubActionEnv(webhookVariable: string, webhookUrl: string) {
  vi.stubEnv(webhookVariable, webhookUrl);
  vi.stubEnv("WEBHOOK_DEADLINE_MS", "500");
  vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "150");
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
  vi.spyOn(console, "info").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
}

/**
 * Runs `test` with the form's webhook unset and the outbox in a fresh
 * temporary folder, removed afterwards; `lines` reads the outbox file's lines.
 */
export async function withTempOutbox(form: string, test: (lines: () => Promise<string[]>) => Promise<void>) {
  const dir = await mkdtemp(path.join(tmpdir(), "outbox-"));
  vi.stubEnv(`${form.toUpperCase()}_WEBHOOK_URL`, "");
  vi.stubEnv("OUTBOX_DIR", dir);
  try {
    await test(async () => (await readFile(path.join(dir, `${form}-outbox.jsonl`), "utf8")).trim().split("\n"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `send` and checks that the receiver got nothing meanwhile; resolves to `send`'s answer. */
export async function withoutDelivery<T>(receiver: { received: readonly unknown[] }, send: () => Promise<T>) {
  const before = receiver.received.length;
  const answer = await send();
  expect(receiver.received.length).toBe(before);
  return answer;
}
