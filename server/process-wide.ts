/**
 * State a server process keeps once, whichever of Next's bundles asks for it.
 *
 * Under `next start`, instrumentation.ts, each route and the server actions are
 * bundled apart, and each bundle has its own copy of every module it imports: a
 * value kept in module scope exists once per bundle. What must exist once per
 * process lives here instead, on globalThis under one key, each value named by
 * the module that owns it:
 *
 * - `databases` (db/connect): one pool per database, opened and migrated once;
 * - `rate-limits` (forms/limits): one Redis client and one set of counters,
 *   so every bundle counts in the same memory;
 * - `store-outage` (outbox/store-outage): whether the store is down, so an
 *   outage is logged and told once, not once per bundle;
 * - `schedule` (ops/scheduler): the one timer and whether its tick runs;
 * - `retention` (ops/retention): when retention last ran;
 * - `answer-pace` (forms/answer-pace): each form's recent delivery times,
 *   which a post that sent nothing (a repeat) takes its answer's time from;
 * - `shutdown` (ops/shutdown): what a stopping server waits for, in order;
 * - `alert-refusals` (outbox/alerts): when the chat last refused each kind of
 *   alert, so a pass's review tries it again a minute later, not every poll;
 * - `alerts` (outbox/alerts): the alerts under way, so whoever waits for them
 *   (the action, the cron route, a command) waits for all of them.
 * - `activity-lines` (operators/activity-store): how many activity lines the
 *   process wrote, so lines of one millisecond keep their order.
 */
const KEY = Symbol.for("sous.process-wide");

type Slots = Map<string, unknown>;

/** The process's one value under `name`, made by `initial` the first time any bundle asks. */
export function processWide<T>(name: string, initial: () => T): T {
  const holder = globalThis as typeof globalThis & { [KEY]?: Slots };
  const slots = (holder[KEY] ??= new Map());
  if (!slots.has(name)) slots.set(name, initial());
  return slots.get(name) as T;
}
