import type { Migration } from "kysely";
import leads from "./0001-leads.json";
import consent from "./0002-consent.json";
import alerts from "./0003-alerts.json";
import alertState from "./0004-alert-state.json";
import limitCounts from "./0005-limit-counts.json";
import consentRenewal from "./0006-consent-renewal.json";
import invitations from "./0007-invitations.json";
import receiverAnswers from "./0008-receiver-answers.json";
import invitationReach from "./0009-invitation-reach.json";
import console_ from "./0010-console.json";
import consoleReads from "./0011-console-reads.json";
import limitKeys from "./0012-limit-keys.json";
import consentMessages from "./0013-consent-messages.json";
import startNeedsARecord from "./0014-start-needs-a-record.json";
import sessionPasskeys from "./0015-session-passkeys.json";
import searchByTrigrams from "./0016-search-by-trigrams.json";
import sessionBrowser from "./0017-session-browser.json";
import oneOutbox from "./0018-one-outbox.json";
import sendBudget from "./0019-send-budget.json";
import invitationOpens from "./0020-invitation-opens.json";
import operatorTimeZone from "./0021-operator-time-zone.json";
import leadSources from "./0022-lead-sources.json";
import welcomeAnswers from "./0023-welcome-answers.json";
import passkeyNames from "./0024-passkey-names.json";
import { migrationOf, type MigrationSpec } from "./spec";

/** Every migration's spec, in order: the tables and columns it creates, as data (db:copy reads the tables from them). */
export const specs: Record<string, MigrationSpec> = {
  "0001-leads": leads,
  "0002-consent": consent,
  "0003-alerts": alerts,
  "0004-alert-state": alertState,
  "0005-limit-counts": limitCounts,
  "0006-consent-renewal": consentRenewal,
  "0007-invitations": invitations,
  "0008-receiver-answers": receiverAnswers,
  "0009-invitation-reach": invitationReach,
  "0010-console": console_,
  "0011-console-reads": consoleReads,
  "0012-limit-keys": limitKeys,
  "0013-consent-messages": consentMessages,
  "0014-start-needs-a-record": startNeedsARecord,
  "0015-session-passkeys": sessionPasskeys,
  "0016-search-by-trigrams": searchByTrigrams,
  "0017-session-browser": sessionBrowser,
  "0018-one-outbox": oneOutbox,
  "0019-send-budget": sendBudget,
  "0020-invitation-opens": invitationOpens,
  "0021-operator-time-zone": operatorTimeZone,
  "0022-lead-sources": leadSources,
  "0023-welcome-answers": welcomeAnswers,
  "0024-passkey-names": passkeyNames,
};

/**
 * Every migration, in order: imported, not read from disk, so a bundled
 * server has them too. Each is frozen once committed (its statements are
 * pinned by migrations.test.ts): a later change is a new file.
 */
export const migrations: Record<string, Migration> = Object.fromEntries(
  Object.entries(specs).map(([name, spec]) => [name, migrationOf(spec)]),
);
