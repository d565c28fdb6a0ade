import "server-only";
import { processWide } from "@/server/process-wide";

/**
 * Work a server finishes before its process exits, by name, in the order it
 * was registered: instrumentation.ts registers it at start, and `npm start`
 * (scripts/start.mjs) runs it once it has stopped taking connections and the
 * requests under way are answered. It reaches this list through the
 * process-wide slot "shutdown", the one way a plain script can call into
 * the app's bundles.
 */
const tasks = processWide("shutdown", () => new Map<string, () => Promise<unknown>>());

export function beforeExit(name: string, task: () => Promise<unknown>) {
  tasks.set(name, task);
}
