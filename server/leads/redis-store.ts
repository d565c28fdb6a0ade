import "server-only";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { parseLead, type Lead } from "./lead";
import type { LeadStore } from "./store";

/**
 * Leads in Redis, shared by every instance: `lead:<key>` holds the record,
 * the set `leads` names them all, `lead-lease:<key>` is a lease (SET NX PX).
 * This Redis must persist (appendonly yes): a lead lives only here.
 */
export function redisLeadStore(redis: Redis, prefix = "leads"): LeadStore {
  const recordOf = (key: string) => `${prefix}:lead:${key}`;
  const leaseOf = (key: string) => `${prefix}:lease:${key}`;
  const index = `${prefix}:all`;
  const holders = new Map<string, string>();

  return {
    async add(lead) {
      const [[, created] = []] =
        (await redis.multi().set(recordOf(lead.key), JSON.stringify(lead), "NX").sadd(index, lead.key).exec()) ?? [];
      if (created === "OK") return lead;
      return parseLead(await redis.get(recordOf(lead.key))) ?? lead;
    },
    get: async (key) => parseLead(await redis.get(recordOf(key))),
    async update(lead) {
      // XX: a lead settled meanwhile stays settled.
      await redis.set(recordOf(lead.key), JSON.stringify(lead), "XX");
    },
    async remove(key) {
      await redis.multi().del(recordOf(key)).srem(index, key).exec();
    },
    async list() {
      const keys = await redis.smembers(index);
      if (!keys.length) return [];
      const records = await redis.mget(keys.map(recordOf));
      return records.map(parseLead).filter((lead): lead is Lead => lead !== undefined);
    },
    async lease(key, ms) {
      const token = randomUUID();
      const taken = (await redis.set(leaseOf(key), token, "PX", ms, "NX")) === "OK";
      if (taken) holders.set(key, token);
      return taken;
    },
    async release(key) {
      const token = holders.get(key);
      holders.delete(key);
      if (!token) return;
      // Only the holder's own lease: one that expired and was taken over stays.
      await redis.eval(
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
        1,
        leaseOf(key),
        token,
      );
    },
  };
}
