import { privacyContent } from "@/components/legal/privacy-content";
import { LegalPage, legalMetadata } from "@/components/legal/legal-page";
import { businessIdentity } from "@/server/site-settings";

export const metadata = legalMetadata(privacyContent(businessIdentity()), "/privacy");

// Prerendered, and rebuilt hourly: the business's identity is read from the server's env when it renders.
export const revalidate = 3600;

export default function PrivacyPage() {
  const identity = businessIdentity();
  return <LegalPage document={privacyContent(identity)} identity={identity} />;
}
