import { privacyContent } from "@/components/legal/privacy-content";
import { LegalPage, legalMetadata } from "@/components/legal/legal-page";
import { businessIdentity } from "@/server/site-settings";

export const metadata = legalMetadata(privacyContent(businessIdentity()), "/privacy");

export default function PrivacyPage() {
  const identity = businessIdentity();
  return <LegalPage document={privacyContent(identity)} identity={identity} />;
}
