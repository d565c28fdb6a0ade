import "server-only";
import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { FormName } from "@/server/forms/registry";

export function outboxFile(dir: string, form: FormName) {
  return path.join(dir, `${form}-outbox.jsonl`);
}

/**
 * The embedded default when a form has no webhook URL: one JSON line per
 * submission, appended in a single write so a line is never half there.
 */
export async function appendToOutbox(dir: string, form: FormName, entry: object) {
  const file = outboxFile(dir, form);
  await mkdir(dir, { recursive: true });
  await appendFile(file, `${JSON.stringify(entry)}\n`, "utf8");
  return file;
}
