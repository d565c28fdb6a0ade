import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { awaitingStartMessage } from "@/components/forms/form-messages";
import { ResultPage } from "@/components/forms/result-page";
import { consentForms } from "@/lib/forms";

export const metadata: Metadata = { title: awaitingStartMessage.title, robots: { index: false } };

// One static page per form that keeps consent; any other name is not found.
export const dynamicParams = false;
export const generateStaticParams = () => consentForms.map(({ form }) => ({ form }));

/**
 * Where a sign-up posted without JavaScript lands when its number asked us to
 * stop texting it: the sign-up is kept, and waits for START from the phone.
 */
export default async function TextStartPage({ params }: { params: Promise<{ form: string }> }) {
  const { form } = await params;
  if (!consentForms.some((entry) => entry.form === form)) notFound();
  return (
    <ResultPage message={awaitingStartMessage} tone="waiting" back={{ href: "/", label: "Back to the home page" }} />
  );
}
