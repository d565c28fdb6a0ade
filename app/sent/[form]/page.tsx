import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ResultPage } from "@/components/forms/result-page";
import { forms, formNames, isFormName } from "@/lib/forms";
import { startAgainNote } from "@/lib/sms/program";

export const metadata: Metadata = { title: "Sent", robots: { index: false } };

// One static page per form; any other name is not found.
export const dynamicParams = false;
export const generateStaticParams = () => formNames.map((form) => ({ form }));

/** Where a form posted without JavaScript lands once it went through (post/redirect/get). */
export default async function SentPage({ params }: { params: Promise<{ form: string }> }) {
  const { form } = await params;
  if (!isFormName(form)) notFound();
  const definition = forms[form];
  return (
    <ResultPage
      message={definition.messages.success}
      // A form that texts says, to everyone alike, how a number that replied STOP gets the texts again.
      note={definition.consent ? startAgainNote : undefined}
      back={{ href: "/", label: "Back to the home page" }}
    />
  );
}
