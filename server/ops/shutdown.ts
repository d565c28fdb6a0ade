import "server-only";
import { processWide } from "@/server/process-wide";

// Work a server finishes before it exits, in the order registered; `npm start` runs it once requests under way are
// answered. A process-wide slot is the one way a plain script can call into the app's bundles.
const tasks = processWide("shutdown", () => new Map<string, () => Promise<unknown>>());

export function beforeExit(name: string, task: () => Promise<unknown>) {
  tasks.set(name, task);
}
