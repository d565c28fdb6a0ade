// Under `next start` each bundle (instrumentation, each route, the server actions) has its own copy of every module:
// what must exist once per process (a pool, a timer, an outage's state) lives on globalThis under one key, by name.
const KEY = Symbol.for("sous.process-wide");

type Slots = Map<string, unknown>;

/** The process's one value under `name`, made by `initial` the first time any bundle asks. */
export function processWide<T>(name: string, initial: () => T): T {
  const holder = globalThis as typeof globalThis & { [KEY]?: Slots };
  const slots = (holder[KEY] ??= new Map());
  if (!slots.has(name)) slots.set(name, initial());
  return slots.get(name) as T;
}
