import { afterAll, beforeAll } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

/** A webhook receiver on 127.0.0.1 for the tests of one file: started before them, closed after. */
export function setupWebhookReceiver(): Omit<WebhookReceiver, "close"> {
  let receiver: WebhookReceiver | undefined;
  const started = () => {
    if (!receiver) throw new Error("the receiver starts in beforeAll");
    return receiver;
  };
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());
  return {
    get url() {
      return started().url;
    },
    get received() {
      return started().received;
    },
    withName: (token) => started().withName(token),
    outage: (status) => started().outage(status),
    slow: (ms) => started().slow(ms),
  };
}
