import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { leadsTable } from "../support/lead-rows";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { freePort, stablePort, startProcess, type Started } from "../support/processes";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { expect, test } from "./fixtures";

/** Whether anything accepts a connection on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/** Every process under `pid`, children and theirs. */
function descendantsOf(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync("pgrep", ["-P", String(pid)])
      .toString()
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    // pgrep exits 1 when there are none.
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} to the npm start process stops the server: no orphan, the port free, the delivery under way finished`, async () => {
    test.setTimeout(90_000);
    const receiver = await startWebhookReceiver();
    const dataDir = await mkdtemp(path.join(tmpdir(), "sous-stop-"));
    // Found free after the stop only if no other test process may be given it meanwhile.
    const port = await stablePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production" as const,
      NEXT_TELEMETRY_DISABLED: "1",
      DATA_DIR: dataDir,
      WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    };
    // As an operator or a process manager starts it.
    let descendants: number[] = [];
    const npm = await startProcess("npm", ["start", "--", "--hostname", "127.0.0.1", "--port", String(port)], {
      env,
      url: `http://127.0.0.1:${port}`,
      ready: (output) => output.includes("Ready in"),
    });
    try {
      descendants = descendantsOf(npm.child.pid!);
      expect(descendants.length).toBeGreaterThan(0);

      // A sign-up whose delivery takes two seconds: under way when the signal comes.
      receiver.slow(2_000);
      const name = `Stopping ${signal} ${process.pid}`;
      // Not followed: the result page is a second request, to a server that is stopping.
      const visitor = postSignupWithoutScript(
        npm.url,
        { name, phone: "(555) 010-7101", consent: "on" },
        {},
        undefined,
        {
          follow: false,
        },
      );
      // The first post to a server just started: under both CI lines' load it reached the receiver after more than
      // the default 5 s once (f2d1448).
      await expect.poll(() => receiver.withName(name).length, { timeout: 30_000 }).toBe(1);
      npm.child.kill(signal);

      // The visitor is answered: sent on to the sign-up's result page.
      expect(await visitor).toMatchObject({ status: 303, location: "/sent/waitlist" });
      await expect.poll(() => alive(npm.child.pid!), { timeout: 20_000 }).toBe(false);
      // A stop asked for is not a failure: systemd and process managers read 0.
      expect(npm.child.exitCode).toBe(0);
      for (const pid of descendants) expect(alive(pid), `process ${pid}`).toBe(false);
      expect(await listening(port)).toBe(false);
      expect(receiver.withName(name).map((request) => request.answered)).toStrictEqual([200]);
      const table = leadsTable({ dataDir });
      try {
        expect(await table.db.selectFrom("outbox").select("state").execute()).toStrictEqual([{ state: "delivered" }]);
      } finally {
        await table.close();
      }
    } finally {
      receiver.slow(undefined);
      await npm.stop();
      // A server that outlived npm (what this test catches) is not left running after it.
      for (const pid of descendants.filter(alive)) process.kill(pid, "SIGKILL");
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

test("SIGTERM while a redelivery pass waits 4 s on the receiver: the attempt is answered and recorded, never sent again after the restart, exit 0", async () => {
  test.setTimeout(120_000);
  const receiver = await startWebhookReceiver();
  const dataDir = await mkdtemp(path.join(tmpdir(), "sous-stop-pass-"));
  const env = {
    DATA_DIR: dataDir,
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    REDELIVERY_POLL_MS: "200",
    WEBHOOK_ATTEMPT_TIMEOUT_MS: "8000",
  };
  const servers: Started[] = [];
  let opened: ReturnType<typeof leadsTable> | undefined;
  try {
    servers.push(await startNextServer(env));
    // Opened once the server made the tables.
    await expect.poll(() => servers[0]!.output()).toContain('"event":"database_ready"');
    const table = (opened = leadsTable({ dataDir }));
    const name = `Stopping pass ${process.pid}`;
    receiver.slow(4_000);
    const [id] = await table.addDue(1, name);
    // The pass sent it, and waits for the answer, when the signal comes.
    await expect.poll(() => receiver.withName(name).length, { timeout: 20_000 }).toBe(1);
    const first = servers[0]!;
    const exited = new Promise<number | null>((resolve) => first.child.once("exit", (code) => resolve(code)));
    first.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(receiver.withName(name).map((request) => request.answered)).toStrictEqual([200]);
    expect(await table.states([id!])).toStrictEqual(["delivered"]);
    const attempts = await table.db
      .selectFrom("outbox_attempts")
      .select("status")
      .where("outbox_id", "=", id!)
      .execute();
    expect(attempts).toStrictEqual([{ status: 200 }]);

    // The next server: its passes run (a lead due now goes out), and the one delivered before the stop does not.
    receiver.slow(undefined);
    servers.push(await startNextServer(env));
    await expect.poll(() => servers[1]!.output()).toContain('"event":"database_ready"');
    const [twin] = await table.addDue(1, `Twin after the stop ${process.pid}`);
    await expect.poll(() => table.states([twin!]), { timeout: 20_000 }).toStrictEqual(["delivered"]);
    // Past the claim the stopped server held (attempt timeout + 5 s): a lead it left claimed would be sent now.
    await new Promise((resolve) => setTimeout(resolve, 14_000));
    expect(receiver.withName(name).map((request) => request.answered)).toStrictEqual([200]);
  } finally {
    receiver.slow(undefined);
    await Promise.all(servers.map((server) => server.stop()));
    await opened?.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

/** `npm start`'s server (scripts/start.mjs) run to its end: its exit code, and every line it printed. */
function startToEnd(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; lines: string[] }>((resolve) => {
    const child = spawn(process.execPath, [path.join(process.cwd(), "scripts", "start.mjs"), ...args], { env });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => resolve({ code, lines: output.split("\n").filter(Boolean) }));
  });
}

test("npm start's own lines are JSON, one event each: ready, a port taken, a port that is none", async () => {
  test.setTimeout(60_000);
  const dataDir = await mkdtemp(path.join(tmpdir(), "sous-start-lines-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATA_DIR: dataDir,
  };
  const taken = createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
  const server = await startNextServer({ DATA_DIR: dataDir });
  try {
    // The working twin: a server that starts says so in a JSON line, with where it listens.
    const ready = server
      .output()
      .split("\n")
      .find((line) => line.includes("Ready in"));
    expect(JSON.parse(ready!)).toMatchObject({ level: "info", event: "ready", url: server.url });

    const busy = await startToEnd(["--hostname", "127.0.0.1", "--port", String(port)], env);
    expect(busy.code).toBe(1);
    const events = busy.lines.map((line) => JSON.parse(line) as { event: string; level: string; message?: string });
    expect(events.at(-1)).toMatchObject({
      level: "error",
      event: "listen_failed",
      message: expect.stringContaining("EADDRINUSE"),
    });

    const none = await startToEnd(["--port", "99999"], env);
    expect(none).toStrictEqual({
      code: 1,
      lines: [
        expect.stringMatching(
          /^\{"time":"[^"]+","level":"error","event":"start_refused","reason":"port","port":"99999"\}$/,
        ),
      ],
    });
  } finally {
    await server.stop();
    await new Promise((resolve) => taken.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
});
