import { SHARED_POSTGRES, postgresInstalled, startPostgresCluster } from "./postgres-server";

/**
 * Vitest's global setup: one Postgres cluster for the whole unit run, where
 * each test file's startPostgresServer() makes a database of its own (about
 * 0.1 s instead of a cluster's 2 s). Its address reaches the test files
 * through the environment they inherit. Without Postgres installed, none: the
 * files that need it start their own and say how to install it.
 */
export default async function setup() {
  if (process.env[SHARED_POSTGRES] || !postgresInstalled()) return;
  // Two files at once, each with a few pools of up to 10 (openPostgres), and the tests that open a second server.
  const cluster = await startPostgresCluster({ maxConnections: 400 });
  process.env[SHARED_POSTGRES] = JSON.stringify({ url: cluster.url, socketUrl: cluster.socketUrl });
  return async () => {
    delete process.env[SHARED_POSTGRES];
    await cluster.stop();
  };
}
