import type { Generated } from "kysely";

/**
 * The tables, as both engines hold them. Times are milliseconds since the
 * epoch in a BIGINT (read back as numbers): one type for SQLite and Postgres,
 * compared and indexed as plain integers.
 */

/**
 * pending: waiting for its next attempt; held: no webhook URL was set; dead:
 * the schedule is spent; delivered: acknowledged; revoked: its number withdrew
 * consent before it was delivered, so it is never sent; awaiting_start: a web
 * sign-up of a number whose consent was revoked, sent only once the phone
 * texts START (then pending).
 */
export const leadStates = ["pending", "held", "dead", "delivered", "revoked", "awaiting_start"] as const;
export type LeadState = (typeof leadStates)[number];

export type LeadsTable = {
  /** The webhook-id every attempt carries: receivers drop duplicates by it. */
  id: string;
  form: string;
  /** sha256 of the form and its values while the lead is open, so a visitor's retry finds it; NULL once delivered. */
  dedupe_key: string | null;
  /** The webhook body as JSON, exactly as first sent; NULL once LEAD_RETENTION_DAYS have passed after delivery. */
  payload: string | null;
  state: LeadState;
  attempts: Generated<number>;
  /** Redelivery rounds after the first failure: the lead's place in the schedule. */
  rounds: Generated<number>;
  created_at: number;
  next_attempt_at: number;
  last_failure: string | null;
  delivered_at: number | null;
  /** The claim: who is sending it and until when. An expired claim is free to take. */
  claimed_by: string | null;
  claimed_until: number | null;
};

/** The delivery log: one row per HTTP attempt. It outlives the payload. */
export type LeadAttemptsTable = {
  lead_id: string;
  /** 1 for the lead's first attempt, and so on. */
  number: number;
  at: number;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Empty for a 2xx; else status, redirect, timeout or network. */
  failure: string | null;
  duration_ms: number;
  /** Who sent it: visitor, pass or operator. */
  sender: string;
};

/** Each consent text a page has shown, once: a record names its version, so the wording outlives a copy change. */
export type DisclosuresTable = {
  /** sha256 of the text, in hex. */
  version: string;
  text: string;
  first_recorded_at: number;
};

/** The evidence of one accepted sign-up's consent, kept CONSENT_RETENTION_DAYS whatever becomes of its lead. */
export type ConsentsTable = {
  id: string;
  /** E.164. */
  phone: string;
  consented_at: number;
  /** The client address as the rate limiter sees it. */
  ip: string | null;
  user_agent: string | null;
  page_url: string | null;
  /** 1 when the form was sent by the page's JavaScript, 0 by the browser's own post. */
  javascript: number;
  /** The lead's webhook-id. */
  lead_id: string;
  disclosure_version: string;
  /**
   * 0 for a web sign-up of a number whose consent was revoked: evidence only,
   * it puts nothing back in force (anyone can type a number); 1 otherwise.
   */
  puts_in_force: Generated<number>;
};

/** When consent ended for a number, and how: an operator's command or the workflow's call after a STOP. */
export type ConsentRevocationsTable = {
  id: string;
  phone: string;
  revoked_at: number;
  /** How the person asked: sms (a STOP reply), email or other. */
  channel: string;
  /** Who recorded it: operator or workflow. */
  source: string;
  message_id: string | null;
};

/** When a number's consent came back after a revocation: a START texted from the phone, recorded by the workflow. */
/** Each number that signed up on the web, once, with where its consent stands: consent-store.ts keeps it in step with the records. */
export type ConsentStandingsTable = {
  phone: string;
  /** Its first web sign-up's time: its place on the waitlist. */
  first_at: number;
  /** That sign-up's record (`con_…`): the number's key in the console. */
  first_id: string;
  state: "in force" | "revoked" | "none";
};

export type ConsentRenewalsTable = {
  id: string;
  phone: string;
  renewed_at: number;
  /** How the person asked: sms (a START reply). */
  channel: string;
  /** Who recorded it: the workflow. */
  source: string;
  message_id: string | null;
};

/** When an alert of a kind was last sent for a form. */
export type AlertsTable = { kind: string; form: string; last_sent_at: number };

/** A form's receiver: failing since when, or null while it delivers. */
export type ReceiversTable = {
  form: string;
  failing_since: number | null;
  last_failure: string | null;
  probed_at: number | null;
};

/**
 * What the alert channel last said of a form's receiver ("failing" or
 * "working", null before anything), when, and what happened since: the
 * outages begun (`failures`), the first of them, and since when the receiver
 * works again.
 */
export type AlertStatesTable = {
  form: string;
  reported: "failing" | "working" | null;
  reported_at: Generated<number>;
  failures: Generated<number>;
  first_failure_at: number | null;
  working_since: number | null;
  /** How it came to work: a delivery, or nothing left waiting (the last lead dropped or delivered elsewhere). */
  working_how: "delivered" | "idle" | null;
};

/** A limit's count in its window, where no Redis is set: `key` is sha256 of the limiter's name and the counted key. */
export type LimitCountsTable = { key: string; points: number; expires_at: number };

/** A workflow message's id, once, as the consent event it recorded (server/consent/consent-store.ts). */
export type ConsentMessagesTable = { message_id: string; kind: "revoke" | "renew"; recorded_at: number };

/** The rate limits' own key, made at random where no RATE_LIMIT_KEY_SECRET is set (server/forms/limit-store.ts). */
export type LimitKeysTable = { name: string; secret: string; created_at: number };

/** A wave of launch invitations the operator queued. */
export type InvitationWavesTable = { name: string; created_at: number; size: number; cancelled_at: number | null };

/**
 * queued: waiting for its turn (or for its next attempt after a failure);
 * waiting: due outside the sending hours of its number's time zones, waits
 * for them to open; texted: the workflow texted it; refused: the carrier
 * refused the number (carrier_code says why); skipped: its consent was
 * revoked before it went; failed: its delivery schedule is spent, or no hour
 * is inside the window in every zone the number could be in; cancelled: its
 * wave was cancelled before it went.
 */
export const invitationStates = ["queued", "waiting", "texted", "refused", "skipped", "failed", "cancelled"] as const;
export type InvitationState = (typeof invitationStates)[number];

/** One launch invitation: at most one per number for the whole launch. */
export type InvitationsTable = {
  /** The webhook-id every attempt carries. */
  id: string;
  phone: string;
  wave: string;
  /** Its place in the wave: sign-up order. */
  position: number;
  /** The consent record it relied on (a sign-up's `con_…`, or a START's `ren_…`), checked again when it is claimed. */
  consent_id: string;
  /** The exact text it sends. */
  text: string;
  state: InvitationState;
  attempts: Generated<number>;
  /** How many attempts may have reached the carrier; none, and a cancelled or failed one is given back to later waves. */
  reached: Generated<number>;
  rounds: Generated<number>;
  queued_at: number;
  next_attempt_at: number;
  /** When a sender last claimed it to send. */
  claimed_at: number | null;
  /** When the workflow's answer that settled it came. */
  answered_at: number | null;
  /** What the workflow answered: "texted" or "texted:false". */
  answer: string | null;
  carrier_code: string | null;
  last_failure: string | null;
  claimed_by: string | null;
  claimed_until: number | null;
};

/** The earliest time the next invitation may be claimed, across every instance. */
export type InvitationPaceTable = { id: string; next_at: number };

/** Who may do what in the console: an owner everything, a viewer counts and masked lists (docs/decisions/0015-operator-roles.md). */
export const operatorRoles = ["owner", "viewer"] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/** A person who runs Sous in the console. */
export type OperatorsTable = { id: string; email: string; role: OperatorRole; created_at: number };

/** A passkey an operator registered: what verifies their sign-ins. */
export type OperatorPasskeysTable = {
  /** The credential id, base64url. */
  id: string;
  operator_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: Generated<number>;
  /** The authenticator's transports, as JSON ("["internal","hybrid"]"), a hint for the next sign-in. */
  transports: string | null;
  created_at: number;
  used_at: number | null;
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
  /** Its browser in two words ("Chrome on macOS"), for the operator to tell sessions apart. */
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

/** What a passkey ceremony is for. */
export const challengePurposes = ["enrol", "setup", "sign-in", "confirm", "add"] as const;
export type ChallengePurpose = (typeof challengePurposes)[number];

/** A passkey ceremony under way. */
export type ConsoleChallengesTable = {
  id: string;
  challenge: string;
  purpose: ChallengePurpose;
  /** Whose passkey it registers (enrol, add); none for a sign-in or the first owner's setup. */
  operator_id: string | null;
  /** The enrolment link it came from. */
  link_id: string | null;
  expires_at: number;
};

/** One operator action, never with personal data in it. */
export type OperatorActivityTable = {
  id: string;
  at: number;
  /** The operator's email, or "command" for an `npm run` command on the server. */
  actor: string;
  via: "console" | "command";
  action: string;
  /** What it was done to, when that is not personal: a wave's name, a lead's webhook-id, an operator's email. */
  subject: string | null;
  rows: number | null;
};

export type Database = {
  leads: LeadsTable;
  lead_attempts: LeadAttemptsTable;
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
