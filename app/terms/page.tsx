import { termsContent } from "@/components/legal/terms-content";
import { LegalPage, legalMetadata } from "@/components/legal/legal-page";
import { businessIdentity } from "@/server/site-settings";

export const metadata = legalMetadata(termsContent(businessIdentity()), "/terms");

export default function TermsPage() {
  const identity = businessIdentity();
  return <LegalPage document={termsContent(identity)} identity={identity} />;
}
