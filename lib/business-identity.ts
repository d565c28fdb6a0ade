/** What the legal pages say of the business and of how long it keeps records: read from the server's settings (server/site-settings.ts), shown by components/legal. */
export type BusinessIdentity = {
  legalName: string;
  /** Empty until set: the pages then offer it on request. */
  postalAddress: string;
  supportEmail: string;
  /** YYYY-MM-DD. */
  effectiveDate: string;
  leadRetentionDays: number;
  consentRetentionDays: number;
  /** The countries whose numbers the waitlist takes (WAITLIST_PHONE_COUNTRIES): what /terms says the program is open to. */
  phoneCountries: string[];
};
