import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { workflowFile } from "../../workflows/n8n/build";

/** What a probe's unsigned call was answered (0: no answer), and when; a 2xx answer's body, which none should have. */
export type Probed = { at: number; status: number; body?: string };

/**
 * Posts an unsigned call to a webhook 100 ms after the last one's answer,
 * until stopped: what an upgrade of the workflows costs, as a caller sees it
 * (tests/e2e/n8n-editor-upgrade.server.spec.ts).
 */
export function probeWebhook(url: string) {
  const seen: Probed[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
        .then(async (response) => ({
          status: response.status,
          body: response.ok ? (await response.text()).slice(0, 200) : (await response.body?.cancel(), undefined),
        }))
        .catch(() => ({ status: 0, body: undefined }));
      seen.push({ at: Date.now(), ...answer });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const stop = async () => {
    running = false;
    await loop;
  };
  return {
    seen,
    stop,
    /** Stops once `done` says so, looked at every 100 ms. */
    async until(done: () => boolean) {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 100));
      await stop();
    },
  };
}

/**
 * A probe on each webhook (probeWebhook), returned once each has had the
 * answer of the version running before an upgrade, `olderStatus(key)`, so that
 * the upgrade begins on a probe that saw it: a fixed second was too short for
 * one of them under a loaded CI run (its first call answered only as n8n
 * stopped). Within 30 s, or every probe stopped and an error naming the key.
 */
export async function probesOnOlderVersion<Key extends string>(
  urls: Record<Key, string>,
  olderStatus: (key: Key) => number,
) {
  const keys = Object.keys(urls) as Key[];
  const probes = Object.fromEntries(keys.map((key) => [key, probeWebhook(urls[key])])) as Record<
    Key,
    ReturnType<typeof probeWebhook>
  >;
  const deadline = Date.now() + 30_000;
  for (const key of keys)
    while (!probes[key].seen.some((entry) => entry.status === olderStatus(key))) {
      if (Date.now() > deadline) {
        await Promise.all(keys.map((each) => probes[each].stop()));
        const last = probes[key].seen.slice(-3).map((entry) => entry.status);
        throw new Error(
          `${key}: no ${olderStatus(key)} from the running version within 30 s (last: ${last.join(", ")})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  return probes;
}

type ShippedWorkflow = { nodes: Array<{ parameters: { jsCode?: string } }> };

/**
 * The version an operator runs before an upgrade of the workflows: the shipped one with a difference a probe sees,
 * an unsigned call answered 418 (419 for Twilio's line) instead of 401 (403). Written into the folder; its file.
 */
export function olderVersion(folder: string) {
  const older = JSON.parse(readFileSync(workflowFile, "utf8")) as ShippedWorkflow[];
  for (const node of older.flatMap((workflow) => workflow.nodes))
    if (node.parameters.jsCode)
      node.parameters.jsCode = node.parameters.jsCode
        .replaceAll("answer(401,", "answer(418,")
        .replaceAll("answer(403,", "answer(419,");
  const file = path.join(folder, "older.json");
  writeFileSync(file, JSON.stringify(older));
  return file;
}

/**
 * What an unsigned call gets from each workflow, before the upgrade (olderVersion's) and after (the shipped one):
 * 419 then 403 for Twilio's line ("incoming"), 418 then 401 for the others.
 */
export const unsignedAnswers = (key: string): [older: number, newer: number] =>
  key === "incoming" ? [419, 403] : [418, 401];
