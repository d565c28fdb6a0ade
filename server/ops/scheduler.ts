import "server-only";
import { reviewReceivers } from "@/server/outbox/alerts";
import { database, type Store } from "@/server/db/connect";
import { claimProbe, failingReceivers } from "@/server/outbox/alert-store";
import { probeFailingReceivers, type FailingReceivers, type Probed } from "@/server/outbox/probe";
import { storeAnswered, storeFailed } from "@/server/outbox/store-outage";
import { readEnv, type ServerEnv } from "@/server/env";
import { invitationPass, invitationProbe, type InvitationSummary } from "@/server/invitations/invitation-pass";
import { leadProbe, redeliveryPass, type LeadPassSummary, type PassOptions } from "@/server/outbox/lead-pass";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { applyRetention, type RetentionSummary } from "./retention";

/** The schedule's tasks, in the order a tick starts them. */
export const taskNames = ["retention", "leads", "invitations", "alerts review"] as const;
export type TaskName = (typeof taskNames)[number];

/** What each task did, by name; a task the tick did not run is absent. */
export type TickSummary = {
  retention?: RetentionSummary;
  /** The failing forms' probes, then the pass over the leads that are due. */
  leads?: LeadPassSummary & { probed: Probed[] };
  /** The failing workflow's probe, then the pass over the invitations that are due. */
  invitations?: InvitationSummary & { probed: Probed[] };
  "alerts review"?: { reviewed: true };
};

export type TickOptions = {
  /**
   * The tick's budget (ms), REDELIVERY_PASS_BUDGET_MS by default: what
   * retention leaves of it is each sending task's own.
   */
  budgetMs?: number;
  /** True once the server is stopping: a pass under way claims nothing more. */
  stopping?: () => boolean;
  /** The lead task's sender and choice of leads (the operator's retry). */
  leads?: Omit<PassOptions, "budgetMs" | "stopping">;
};

/** The receivers failing now, and the claim of a probe every REDELIVERY_PROBE_SECONDS, as the alerts' store keeps them. */
const failing = (store: Store, env: ServerEnv): FailingReceivers => ({
  failing: () => failingReceivers(store),
  claim: (form, now) => claimProbe(store, form, now, env.REDELIVERY_PROBE_SECONDS * 1000),
});

type Task = (run: { store: Store; env: ServerEnv; options: TickOptions; budgetMs: number }) => Promise<object>;

/**
 * Each task, with what it does. The two that send have a budget each, and
 * run side by side: a slow lead pass (a receiver timing out, a backlog)
 * cannot starve a launch, nor a launch waiting for its pace the leads.
 */
const tasks: Record<TaskName, Task> = {
  // At most every ten minutes: what is past its retention goes (retention.ts).
  retention: ({ store, env }) => applyRetention(store, env),
  leads: async ({ store, env, options, budgetMs }) => {
    const probed = await probeFailingReceivers(failing(store, env), leadProbe(store, env));
    const pass = await redeliveryPass(env, {
      ...options.leads,
      budgetMs,
      stopping: options.stopping,
    });
    return { ...pass, probed };
  },
  invitations: async ({ store, env, options, budgetMs }) => {
    const probed = await probeFailingReceivers(failing(store, env), invitationProbe(store, env));
    const pass = await invitationPass(store, env, { budgetMs, stopping: options.stopping });
    return { ...pass, probed };
  },
  // What the channel says of each receiver, once the passes settled what they could.
  "alerts review": async ({ store, env }) => {
    await reviewReceivers(store, env);
    return { reviewed: true };
  },
};

/** Whether a task's run is worth a log line: it sent, settled, probed or forgot something, or ran out of budget. */
function worked(summary: object) {
  return Object.entries(summary).some(
    ([key, value]) =>
      (typeof value === "number" && value > 0) ||
      (key === "budgetSpent" && value === true) ||
      (key === "probed" && Array.isArray(value) && value.length > 0),
  );
}

/**
 * Runs the named tasks, as the timer, the cron route and the operator's
 * commands do: retention first, then the leads and the invitations side by
 * side, each with its own budget, then the alerts' review. Each task that did
 * something logs one line of its own (`scheduled_task`, with `via`).
 */
export async function runTasks(
  names: readonly TaskName[],
  { env = readEnv(), via, ...options }: TickOptions & { env?: ServerEnv; via: "timer" | "cron" | "operator" },
): Promise<TickSummary> {
  const began = performance.now();
  const store = await database(env);
  const summary: Record<string, object> = {};
  let budgetMs = 0;
  const run = async (name: TaskName) => {
    if (!names.includes(name)) return;
    const started = performance.now();
    const done = await tasks[name]({ store, env, options, budgetMs });
    summary[name] = done;
    if (worked(done))
      logEvent("info", {
        event: "scheduled_task",
        task: name,
        via,
        ...done,
        durationMs: Math.round(performance.now() - started),
      });
  };
  await run("retention");
  // Each sending task's budget: what retention left of the tick's (a cron function's time is the tick's).
  budgetMs = (options.budgetMs ?? env.REDELIVERY_PASS_BUDGET_MS) - (performance.now() - began);
  await Promise.all([run("leads"), run("invitations")]);
  await run("alerts review");
  return summary as TickSummary;
}

// Process-wide: one timer per server, whichever bundle starts it.
const timer = processWide("schedule", () => ({
  interval: undefined as NodeJS.Timeout | undefined,
  /** The tick under way, if any. */
  running: undefined as Promise<void> | undefined,
  /** Set once the server stops: a tick under way claims nothing more. */
  stopping: false,
}));

/**
 * What the timer runs each REDELIVERY_POLL_MS: every task, unless the last
 * tick is still running. Resolves to whether it ran one; a tick that fails
 * (the database) is logged once per outage (lead_store_failed).
 */
export async function scheduleTick() {
  if (timer.running || timer.stopping) return false;
  const tick = async () => {
    try {
      await runTasks(taskNames, { via: "timer", stopping: () => timer.stopping });
      storeAnswered();
    } catch (error) {
      storeFailed(error, { during: "scheduled_tick" });
    } finally {
      timer.running = undefined;
    }
  };
  await (timer.running = tick());
  return true;
}

/** Runs scheduleTick every REDELIVERY_POLL_MS for as long as the server lives; started once from instrumentation.ts. */
export function startSchedule(env: ServerEnv = readEnv()) {
  if (timer.interval) return;
  timer.stopping = false;
  timer.interval = setInterval(() => void scheduleTick(), env.REDELIVERY_POLL_MS);
  timer.interval.unref();
}

/** Stops the timer startSchedule started (a test): a tick under way goes on. */
export function stopSchedule() {
  clearInterval(timer.interval);
  timer.interval = undefined;
}

/**
 * A server stopping: no tick starts, the one under way claims no more leads
 * or invitations, and this resolves once the attempts it started are answered
 * (each within WEBHOOK_ATTEMPT_TIMEOUT_MS) and recorded. What it did not get
 * to keeps its place for the next server.
 */
export async function finishSchedule() {
  timer.stopping = true;
  stopSchedule();
  await timer.running;
}
