import { createHash, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { durations, host, paths, ports, serverEnv } from "./config.mjs";
import { start, stop, waitForHttp } from "./processes.mjs";

/**
 * Redelivery, before and after, on the same fixture: leads written in the
 * file store's format under DATA_DIR/pending (the name OUTBOX_DIR both
 * builds read), which a build before the database serves as they are and
 * the database build imports at start.
 *
 * - Drain: `drainLeads` due leads into a receiver that answers in 200 ms,
 *   timed from the server's first answer to the receiver's last delivery.
 * - Idle: a server holding `idleLeads` leads none of which is due; the CPU its
 *   processes use over `idleSeconds`.
 */
const slowReceiverURL = `http://${host}:${ports.slowReceiver}`;

async function writeLegacyLeads(dir, count, dueAt, prefix) {
  const store = path.join(dir, "pending");
  await mkdir(store, { recursive: true });
  const now = Date.now();
  for (let i = 0; i < count; i += 1) {
    const payload = { phone: `+1555030${String(i).padStart(4, "0")}`, name: `${prefix} ${i}` };
    const key = createHash("sha256").update(`waitlist\n${JSON.stringify(payload)}`).digest("hex");
    const lead = { id: `msg_${randomUUID()}`, form: "waitlist", key, payload, createdAt: now, attempts: 3, rounds: 0, nextAttemptAt: dueAt, state: "pending" };
    await writeFile(path.join(store, `${key}.json`), JSON.stringify(lead), { mode: 0o600 });
  }
}

const deliveries = async () => (await (await fetch(`${slowReceiverURL}/__stats`)).json()).deliveries;

/** CPU seconds used so far by every process of a group (Linux /proc). */
async function groupCpuSeconds(pgid) {
  const { readdir } = await import("node:fs/promises");
  let ticks = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

async function serve(target, env, label) {
  const server = start("npx", ["next", "start", "--hostname", host, "--port", String(ports.leads)], {
    cwd: target.dir,
    env: { ...serverEnv, WAITLIST_WEBHOOK_URL: `${slowReceiverURL}/hooks/waitlist`, REDELIVERY_POLL_MS: "200", ...env },
    log: `${paths.runs}leads-${label}.log`,
  });
  await waitForHttp(`http://${host}:${ports.leads}/`, server);
  return server;
}

async function drain(target, concurrency, log) {
  const dir = await mkdtemp(path.join(paths.runs, "drain-"));
  await writeLegacyLeads(dir, durations.drainLeads, 0, `Drain ${randomUUID()}`);
  const before = await deliveries();
  const label = `${target.label} drain c${concurrency}`.replace(/\W+/g, "-");
  log(`leads: draining ${durations.drainLeads} on ${target.label}, concurrency ${concurrency}…`);
  const server = await serve(target, { OUTBOX_DIR: dir, REDELIVERY_CONCURRENCY: String(concurrency) }, label);
  const began = performance.now();
  try {
    const limit = began + 300_000;
    while ((await deliveries()) - before < durations.drainLeads) {
      if (performance.now() > limit) throw new Error(`drain did not finish in 300 s (${(await deliveries()) - before} delivered)`);
      await sleep(50);
    }
    return { seconds: (performance.now() - began) / 1000, delivered: (await deliveries()) - before };
  } finally {
    await stop(server);
  }
}

const healthToken = "bench-health-token-0123456789";

/** GET /api/health `times` times with the token (the heavier answer, with figures): each answer's milliseconds, sorted. */
async function timeHealth(times) {
  const took = [];
  for (let i = 0; i < times; i += 1) {
    const began = performance.now();
    const response = await fetch(`http://${host}:${ports.leads}/api/health`, { headers: { authorization: `Bearer ${healthToken}` } });
    await response.text();
    took.push(performance.now() - began);
  }
  return took.sort((a, b) => a - b);
}

async function idle(target, log, { health = false } = {}) {
  const dir = await mkdtemp(path.join(paths.runs, "idle-"));
  await writeLegacyLeads(dir, durations.idleLeads, Date.now() + 86_400_000, `Idle ${randomUUID()}`);
  log(`leads: ${durations.idleLeads} leads, none due, ${durations.idleSeconds} s on ${target.label}…`);
  const server = await serve(target, { OUTBOX_DIR: dir, REDELIVERY_POLL_MS: "5000", HEALTH_TOKEN: healthToken }, `${target.label} idle`.replace(/\W+/g, "-"));
  try {
    // Start-up (and the database build's one-time import) is not idle time.
    await sleep(5_000);
    const first = await groupCpuSeconds(server.child.pid);
    await sleep(durations.idleSeconds * 1000);
    const cpuSeconds = (await groupCpuSeconds(server.child.pid)) - first;
    // The health check on the same idle server: its one query over the open leads, and the last delivery per form.
    const took = health ? await timeHealth(50) : undefined;
    return {
      cpuSeconds,
      seconds: durations.idleSeconds,
      leads: durations.idleLeads,
      ...(took ? { healthMs: { median: took[Math.floor(took.length / 2)], max: took.at(-1), runs: took.length } } : {}),
    };
  } finally {
    await stop(server);
  }
}

/** Drain at concurrency 4 and 1 and idle cost for this tree, and drain and idle for the baseline when there is one. */
export async function measureLeads(baseline, log) {
  const receiver = start(process.execPath, [path.join(paths.root, "bench/servers/receiver.mjs"), String(ports.slowReceiver), "200"], {
    log: `${paths.runs}slow-receiver.log`,
  });
  await waitForHttp(`${slowReceiverURL}/__stats`, receiver);
  try {
    const here = { label: "this tree", dir: paths.root };
    const result = {
      drainConcurrent: await drain(here, 4, log),
      drainSerial: await drain(here, 1, log),
      idle: await idle(here, log, { health: true }),
    };
    if (baseline) {
      const before = { label: baseline.label, dir: baseline.dir };
      result.baseline = { label: baseline.label, drain: await drain(before, 4, log), idle: await idle(before, log) };
    }
    return result;
  } finally {
    await stop(receiver);
  }
}
