import type { Migration } from "kysely";
import * as leads from "./0001-leads";
import * as consent from "./0002-consent";
import * as alerts from "./0003-alerts";

/** Every migration, in order: imported, not read from disk, so a bundled server has them too. */
export const migrations: Record<string, Migration> = {
  "0001-leads": leads,
  "0002-consent": consent,
  "0003-alerts": alerts,
};
