export const errorContent = {
  unexpectedTitle: "Unexpected Application Error!",
  serverMessage: (digest: string) => `The server could not render this page (error reference ${digest}).`,
  retry: "Try again",
  home: "Return to Home",
  notFoundTitle: "Oops! Page not found",
  notFoundMetaTitle: "Page not found",
} as const;
