const notFoundConsole = "404 Error: User attempted to access non-existent route:";

export const errorContent = {
  unexpectedTitle: "Unexpected Application Error!",
  serverMessage: (digest: string) => `The server could not render this page (error reference ${digest}).`,
  retry: "Try again",
  home: "Return to Home",
  notFoundTitle: "Oops! Page not found",
  notFoundMetaTitle: "Page not found",
  /** What the 404 page writes to the browser's console, before the path asked for. */
  notFoundConsole,
  /** The 404 page's inline script that writes it. */
  notFoundConsoleScript: `console.error(${JSON.stringify(notFoundConsole)},location.pathname)`,
} as const;
