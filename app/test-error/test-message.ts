/** What the test-only /test-error page throws; the browser tests look for it. */
export const testErrorMessage = "Test error: this page failed on purpose";
