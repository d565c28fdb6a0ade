import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import type { Started } from "./processes";
import { startRedisServer } from "./redis-server";

/**
 * A redis-server and a client of it for the tests of one file: started before
 * them, stopped after (woken first, should a test have paused it).
 */
export function setupRedisServer() {
  let server: Started | undefined;
  let client: Redis | undefined;
  const started = () => {
    if (!server || !client) throw new Error("the redis-server starts in beforeAll");
    return { server, client };
  };
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
  }, 30_000);
  afterAll(async () => {
    client?.disconnect();
    server?.child.kill("SIGCONT");
    await server?.stop();
  });
  return {
    get url() {
      return started().server.url;
    },
    /** The server's process, for a test that pauses it. */
    get child() {
      return started().server.child;
    },
    get client() {
      return started().client;
    },
  };
}
