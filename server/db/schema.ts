import type { Generated } from "kysely";

/** Times are milliseconds since the epoch in a BIGINT on both engines: compared and indexed as plain integers. */

/**
 * held: no webhook URL was set; revoked: consent ended before delivery, never sent; awaiting_start: a sign-up of a
 * revoked number, sent once the phone texts START; awaiting_release: past the day's texts budget, sent or dropped by an owner.
 */
export const leadStates = [
  "pending",
  "held",
  "dead",
  "delivered",
  "revoked",
  "awaiting_start",
  "awaiting_release",
] as const;
export type LeadState = (typeof leadStates)[number];

/** What the site sends, each kind in its own words: a lead (LeadState) to its form's workflow, an invitation (InvitationState) to the texting one. */
export type OutboxTable = {
  /** The webhook-id every attempt carries: receivers drop duplicates by it. */
  id: string;
  /** A form's name, or "invitations". */
  receiver: string;
  /** Set while a lead is open, so a visitor's retry of the same values finds it. */
  dedupe_key: string | null;
  /** The body, exactly as first sent; NULL once retention has passed. */
  payload: string | null;
  state: LeadState | InvitationState;
  attempts: Generated<number>;
  rounds: Generated<number>;
  created_at: number;
  next_attempt_at: number;
  last_failure: string | null;
  /** When its receiver acknowledged it (an invitation: answered texted or refused). */
  delivered_at: number | null;
  /** A lead's welcome as its receiver reported it: "texted", "texted:false" (with the carrier's code), or none. */
  answer: string | null;
  carrier_code: string | null;
  claimed_by: string | null;
  claimed_until: number | null;
};

/** A lead's first touch (server/web/visits.ts): how its visitor came, never who they are. */
export type LeadSourcesTable = {
  lead_id: string;
  form: string;
  created_at: number;
  source: string;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
  referrer: string | null;
  landing_page: string | null;
};

/** A day's views of a public page from outside the site, by that view's source (server/web/visits.ts). */
export type VisitsTable = {
  /** YYYY-MM-DD, in UTC. */
  day: string;
  page: string;
  source: string;
  /** "" for none. */
  campaign: string;
  views: number;
};

/** The delivery log: one row per HTTP attempt. It outlives the payload. */
export type OutboxAttemptsTable = {
  outbox_id: string;
  number: number;
  at: number;
  status: number | null;
  failure: string | null;
  duration_ms: number;
  sender: string;
};

/** Each consent text shown, once: a record names its version, so the wording outlives a copy change. */
export type DisclosuresTable = {
  version: string;
  text: string;
  first_recorded_at: number;
};

/** The evidence of one sign-up's consent, kept whatever becomes of its lead. */
export type ConsentsTable = {
  id: string;
  phone: string;
  consented_at: number;
  ip: string | null;
  user_agent: string | null;
  page_url: string | null;
  javascript: number;
  lead_id: string;
  disclosure_version: string;
  /** 0: evidence only (a sign-up of a revoked number puts nothing back in force: anyone can type a number). */
  puts_in_force: Generated<number>;
};

export type ConsentRevocationsTable = {
  id: string;
  phone: string;
  revoked_at: number;
  channel: string;
  source: string;
  message_id: string | null;
};

/** Each number that signed up on the web, with where its consent stands: consent-store.ts keeps it in step with the records. */
export type ConsentStandingsTable = {
  phone: string;
  first_at: number;
  first_id: string;
  state: "in force" | "revoked" | "none";
};

export type ConsentRenewalsTable = {
  id: string;
  phone: string;
  renewed_at: number;
  channel: string;
  source: string;
  message_id: string | null;
};

export type AlertsTable = { kind: string; form: string; last_sent_at: number };

export type ReceiversTable = {
  form: string;
  failing_since: number | null;
  last_failure: string | null;
  probed_at: number | null;
};

/** What the alert channel last said of a receiver, and the outages since. */
export type AlertStatesTable = {
  form: string;
  reported: "failing" | "working" | null;
  reported_at: Generated<number>;
  failures: Generated<number>;
  first_failure_at: number | null;
  working_since: number | null;
  working_how: "delivered" | "idle" | null;
};

export type LimitCountsTable = { key: string; points: number; expires_at: number };

export type ConsentMessagesTable = { message_id: string; kind: "revoke" | "renew"; recorded_at: number };

export type LimitKeysTable = { name: string; secret: string; created_at: number };

export type InvitationWavesTable = { name: string; created_at: number; size: number; cancelled_at: number | null };

/** waiting: due outside its number's sending hours; refused: the carrier refused the number; skipped: consent revoked before it went; failed: the schedule is spent. */
export const invitationStates = ["queued", "waiting", "texted", "refused", "skipped", "failed", "cancelled"] as const;
export type InvitationState = (typeof invitationStates)[number];

/** At most one per number for the whole launch; its delivery state is the outbox row of the same id. */
export type InvitationsTable = {
  id: string;
  phone: string;
  wave: string;
  position: number;
  /** The consent record it relied on, checked again when it is claimed. */
  consent_id: string;
  text: string;
  /** How many attempts may have reached the carrier; none, and a cancelled or failed one is given back to later waves. */
  reached: Generated<number>;
  claimed_at: number | null;
  answer: string | null;
  carrier_code: string | null;
  /** Its link's code (SITE_URL/i/CODE); none before links were the site's own. */
  code: string | null;
  /** When a person's browser first followed its link. */
  opened_at: number | null;
};

/** The earliest time the next invitation may be claimed, across every instance. */
export type InvitationPaceTable = { id: string; next_at: number };

/** A receiver's sending budget: its counts in the minute and the day that began at their starts. */
export type OutboxPaceTable = {
  receiver: string;
  minute_start: number;
  minute_count: number;
  day_start: number;
  day_count: number;
};

/** An owner does everything, a viewer sees counts and masked lists (decision 0015). */
export const operatorRoles = ["owner", "viewer"] as const;
export type OperatorRole = (typeof operatorRoles)[number];

export type OperatorsTable = {
  id: string;
  email: string;
  role: OperatorRole;
  created_at: number;
  /** The console's days and weeks in it; none: BUSINESS_TIME_ZONE. */
  time_zone: string | null;
};

export type OperatorPasskeysTable = {
  id: string;
  operator_id: string;
  public_key: string;
  counter: Generated<number>;
  /** A hint for the next sign-in. */
  transports: string | null;
  created_at: number;
  used_at: number | null;
  /** The device it is on, in the operator's words. */
  name: string | null;
};

/** A console session: the SHA-256 of its cookie's token. */
export type OperatorSessionsTable = {
  id: string;
  operator_id: string;
  created_at: number;
  /** The last request it made: 12 h idle ends it. */
  seen_at: number;
  /** Its absolute end: 7 days after the sign-in. */
  expires_at: number;
  /** The passkey it was opened with: revoking it ends the session (null for sessions older than migration 0015). */
  passkey_id: string | null;
  browser: string | null;
};

/** A one-time enrolment link: the SHA-256 of its token. */
export type OperatorLinksTable = {
  id: string;
  operator_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
};

export const challengePurposes = ["enrol", "setup", "sign-in", "confirm", "add"] as const;
export type ChallengePurpose = (typeof challengePurposes)[number];

export type ConsoleChallengesTable = {
  id: string;
  challenge: string;
  purpose: ChallengePurpose;
  /** Whose passkey it registers (enrol, add); none for a sign-in or the first owner's setup. */
  operator_id: string | null;
  link_id: string | null;
  expires_at: number;
};

/** One operator action, never with personal data in it. */
export type OperatorActivityTable = {
  id: string;
  at: number;
  actor: string;
  via: "console" | "command";
  action: string;
  /** What it was done to, when that is not personal: a wave's name, a lead's webhook-id, an operator's email. */
  subject: string | null;
  rows: number | null;
};

export type Database = {
  outbox: OutboxTable;
  outbox_attempts: OutboxAttemptsTable;
  outbox_pace: OutboxPaceTable;
  lead_sources: LeadSourcesTable;
  visits: VisitsTable;
  disclosures: DisclosuresTable;
  consents: ConsentsTable;
  consent_revocations: ConsentRevocationsTable;
  consent_renewals: ConsentRenewalsTable;
  consent_standings: ConsentStandingsTable;
  alerts: AlertsTable;
  receivers: ReceiversTable;
  alert_states: AlertStatesTable;
  limit_counts: LimitCountsTable;
  limit_keys: LimitKeysTable;
  consent_messages: ConsentMessagesTable;
  invitation_waves: InvitationWavesTable;
  invitations: InvitationsTable;
  invitation_pace: InvitationPaceTable;
  operators: OperatorsTable;
  operator_passkeys: OperatorPasskeysTable;
  operator_sessions: OperatorSessionsTable;
  operator_links: OperatorLinksTable;
  console_challenges: ConsoleChallengesTable;
  operator_activity: OperatorActivityTable;
};
