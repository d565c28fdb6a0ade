import { termsContent } from "@/components/legal/terms-content";
import { LegalPage, legalMetadata } from "@/components/legal/legal-page";
import { businessIdentity } from "@/server/site-settings";

export const metadata = legalMetadata(termsContent(businessIdentity()), "/terms");

// Prerendered, and rebuilt hourly: the business's identity is read from the server's env when it renders.
export const revalidate = 3600;

export default function TermsPage() {
  const identity = businessIdentity();
  return <LegalPage document={termsContent(identity)} identity={identity} />;
}
