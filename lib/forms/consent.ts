/**
 * The hidden fields a form that asks for consent posts beside its own, so the
 * record the server keeps says what the page showed: the version of its
 * consent text, and whether the page's JavaScript sent the form.
 */
export const consentFieldNames = { disclosure: "consentDisclosure", javascript: "consentScript" } as const;
