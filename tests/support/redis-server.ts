import { freePort, startProcess } from "./processes";

/** A throwaway redis-server on 127.0.0.1 that keeps nothing on disk. */
export async function startRedisServer() {
  const port = await freePort();
  return startProcess(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      url: `redis://127.0.0.1:${port}`,
      ready: (output) => output.includes("Ready to accept connections"),
    },
  );
}
