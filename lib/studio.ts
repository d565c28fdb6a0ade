/** The footer's credit line when STUDIO_CREDIT is not set: the studio that built the site. */
export const defaultStudioCredit = "Built by Brigade Labs, a small software studio.";
