/**
 * The operator's view of the pending-lead store: `npm run leads` lists pending
 * and dead leads, `npm run leads -- retry [ID | --dead]` redelivers now,
 * `npm run leads -- drop ID` deletes one. Reads the same env as the server
 * (REDIS_URL, OUTBOX_DIR, the webhook variables); see README "Delivery
 * guarantees".
 */
import { parseArgs } from "node:util";
import { readEnv } from "@/server/env";
import type { Lead } from "@/server/leads/lead";
import { redeliveryPass } from "@/server/leads/redeliver";
import { closeLeadStores, leadStoreFor } from "@/server/leads/stores";

const usage = `Usage:
  npm run leads                      list pending and dead leads, without personal data
  npm run leads -- --show            the same, with each lead's values
  npm run leads -- retry             redeliver every pending lead now
  npm run leads -- retry ID          redeliver one lead (its webhook-id) now
  npm run leads -- retry --dead      redeliver every dead lead now
  npm run leads -- drop ID           delete one lead`;

function age(ms: number) {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function print(leads: Lead[], show: boolean) {
  if (!leads.length) {
    console.log("No pending or dead leads.");
    return;
  }
  const now = Date.now();
  for (const state of ["pending", "dead"] as const) {
    for (const form of [...new Set(leads.map((lead) => lead.form))].sort()) {
      const group = leads.filter((lead) => lead.state === state && lead.form === form).sort((a, b) => a.createdAt - b.createdAt);
      if (!group.length) continue;
      console.log(`\n${form}: ${group.length} ${state}`);
      for (const lead of group) {
        const next = state === "pending" ? `  next in ${age(Math.max(0, lead.nextAttemptAt - now))}` : "";
        console.log(
          `  ${lead.id}  age ${age(now - lead.createdAt)}  attempts ${lead.attempts}  last failure ${lead.lastFailure ?? "none"}${next}`,
        );
        if (show) console.log(`    ${JSON.stringify(lead.payload)}`);
      }
    }
  }
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { show: { type: "boolean" }, dead: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  const [command = "list", id] = positionals;
  if (values.help) return console.log(usage);

  const env = readEnv();
  const store = leadStoreFor(env);
  if (command === "list") return print(await store.list(), Boolean(values.show));

  if (command === "retry") {
    const pick = id
      ? (lead: Lead) => lead.id === id
      : values.dead
        ? (lead: Lead) => lead.state === "dead"
        : (lead: Lead) => lead.state === "pending";
    const summary = await redeliveryPass(env, pick);
    console.log(`delivered ${summary.delivered}, still pending ${summary.pending}, dead ${summary.dead}, held by another worker ${summary.busy}`);
    if (id && !Object.values(summary).some(Boolean)) throw new Error(`no lead with webhook-id ${id}`);
    return;
  }

  if (command === "drop" && id) {
    const lead = (await store.list()).find((kept) => kept.id === id);
    if (!lead) throw new Error(`no lead with webhook-id ${id}`);
    await store.remove(lead.key);
    console.log(`dropped ${id}`);
    return;
  }
  throw new Error(`unknown command\n${usage}`);
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  })
  .finally(closeLeadStores);
