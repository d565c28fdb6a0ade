import "server-only";
import type { Lead } from "./lead";

/**
 * Where leads wait for their webhook: files under OUTBOX_DIR on a single
 * server, Redis when REDIS_URL is set (shared by every instance and by
 * serverless functions). Both keep one record per lead key.
 */
export type LeadStore = {
  /** Keeps a new lead, unless one with its key is already kept: then that one is returned, unchanged. */
  add(lead: Lead): Promise<Lead>;
  get(key: string): Promise<Lead | undefined>;
  /** Replaces a kept lead; does nothing if it was settled meanwhile. */
  update(lead: Lead): Promise<void>;
  remove(key: string): Promise<void>;
  /** Every readable lead, pending and dead. */
  list(): Promise<Lead[]>;
  /** Takes the lead for `ms`, for one worker at a time: false while another holds it. */
  lease(key: string, ms: number): Promise<boolean>;
  release(key: string): Promise<void>;
};
