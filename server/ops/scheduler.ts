import "server-only";
import { reviewReceivers, storeAnswered, storeFailed } from "@/server/outbox/alerts";
import { database, type Store } from "@/server/db/connect";
import { probeFailing, type Probed } from "@/server/outbox/pass";
import { readEnv, type ServerEnv } from "@/server/env";
import { invitationPass, invitationSending, type InvitationSummary } from "@/server/invitations/invitation-pass";
import { leadSending, redeliveryPass, type LeadPassSummary, type PassOptions } from "@/server/forms/leads";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { applyRetention, type RetentionSummary } from "./retention";

export const taskNames = ["retention", "leads", "invitations", "alerts review"] as const;
export type TaskName = (typeof taskNames)[number];

export type TickSummary = {
  retention?: RetentionSummary;
  leads?: LeadPassSummary & { probed: Probed[] };
  invitations?: InvitationSummary & { probed: Probed[] };
  "alerts review"?: { reviewed: true };
};

export type TickOptions = {
  /** The tick's budget (ms): what retention leaves of it is each sending task's own. */
  budgetMs?: number;
  stopping?: () => boolean;
  leads?: Omit<PassOptions, "budgetMs" | "stopping">;
};

type Task = (run: { store: Store; env: ServerEnv; options: TickOptions; budgetMs: number }) => Promise<object>;

// The two that send have a budget each and run side by side: a slow lead pass cannot starve a launch, nor a launch
// waiting for its pace the leads.
const tasks: Record<TaskName, Task> = {
  retention: ({ store, env }) => applyRetention(store, env),
  leads: async ({ store, env, options, budgetMs }) => {
    const probed = await probeFailing(store, env, leadSending);
    const pass = await redeliveryPass(env, {
      ...options.leads,
      budgetMs,
      stopping: options.stopping,
    });
    return { ...pass, probed };
  },
  invitations: async ({ store, env, options, budgetMs }) => {
    const probed = await probeFailing(store, env, invitationSending);
    const pass = await invitationPass(store, env, { budgetMs, stopping: options.stopping });
    return { ...pass, probed };
  },
  "alerts review": async ({ store, env }) => {
    await reviewReceivers(store, env);
    return { reviewed: true };
  },
};

function worked(summary: object) {
  return Object.entries(summary).some(
    ([key, value]) =>
      (typeof value === "number" && value > 0) ||
      (key === "budgetSpent" && value === true) ||
      (key === "probed" && Array.isArray(value) && value.length > 0),
  );
}

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
  // A cron function's time is the tick's.
  budgetMs = (options.budgetMs ?? env.REDELIVERY_PASS_BUDGET_MS) - (performance.now() - began);
  await Promise.all([run("leads"), run("invitations")]);
  await run("alerts review");
  return summary as TickSummary;
}

// Process-wide: one timer per server, whichever bundle starts it.
const timer = processWide("schedule", () => ({
  interval: undefined as NodeJS.Timeout | undefined,
  running: undefined as Promise<void> | undefined,
  stopping: false,
}));

/** Skipped while the last tick still runs; a failing database is logged once per outage. */
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

export function startSchedule(env: ServerEnv = readEnv()) {
  if (timer.interval) return;
  timer.stopping = false;
  timer.interval = setInterval(() => void scheduleTick(), env.REDELIVERY_POLL_MS);
  timer.interval.unref();
}

export function stopSchedule() {
  clearInterval(timer.interval);
  timer.interval = undefined;
}

/** A stopping server: the tick under way claims nothing more and this resolves once its attempts are answered and recorded. */
export async function finishSchedule() {
  timer.stopping = true;
  stopSchedule();
  await timer.running;
}
