/** What a probe's unsigned call was answered (0: no answer), and when. */
export type Probed = { at: number; status: number };

/**
 * Posts an unsigned call to a webhook 100 ms after the last one's answer,
 * until stopped: what an upgrade of the workflows costs, as a caller sees it
 * (bench/n8n-upgrade.ts, tests/e2e/n8n-editor-upgrade.server.spec.ts).
 */
export function probeWebhook(url: string) {
  const seen: Probed[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
        .then((response) => response.status)
        .catch(() => 0);
      seen.push({ at: Date.now(), status });
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
