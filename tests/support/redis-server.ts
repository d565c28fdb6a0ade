import { onFreePort, startProcess } from "./processes";

/** A throwaway redis-server on 127.0.0.1 that keeps nothing on disk. */
export function startRedisServer() {
  return onFreePort((port) =>
    startProcess("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      url: `redis://127.0.0.1:${port}`,
      ready: (output) => output.includes("Ready to accept connections"),
    }),
  );
}
