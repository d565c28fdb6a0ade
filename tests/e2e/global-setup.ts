import { startWebhookReceiver } from "../support/webhook-receiver";
import { e2e } from "./e2e-env";

/** Starts the webhook receiver the server delivers to; stops it after the run. */
export default async function globalSetup() {
  const receiver = await startWebhookReceiver(e2e.receiverPort);
  return () => receiver.close();
}
