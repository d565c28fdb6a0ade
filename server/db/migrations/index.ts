import type { Migration } from "kysely";
import leads from "./0001-leads.json";
import consent from "./0002-consent.json";
import alerts from "./0003-alerts.json";
import alertState from "./0004-alert-state.json";
import limitCounts from "./0005-limit-counts.json";
import consentRenewal from "./0006-consent-renewal.json";
import invitations from "./0007-invitations.json";
import { migrationOf } from "./plan";

/**
 * Every migration, in order: imported, not read from disk, so a bundled
 * server has them too. Each is frozen once committed (its statements are
 * pinned by migrations.test.ts): a later change is a new file.
 */
export const migrations: Record<string, Migration> = {
  "0001-leads": migrationOf(leads),
  "0002-consent": migrationOf(consent),
  "0003-alerts": migrationOf(alerts),
  "0004-alert-state": migrationOf(alertState),
  "0005-limit-counts": migrationOf(limitCounts),
  "0006-consent-renewal": migrationOf(consentRenewal),
  "0007-invitations": migrationOf(invitations),
};
