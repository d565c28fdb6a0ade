import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      // Cross-page links are plain <a>: the pages are static documents, and <Link> would
      // prefetch the sign-up form's JavaScript into the landing page.
      "@next/next/no-html-link-for-pages": "off",
    },
  },
  {
    // Playwright fixtures hand values over through a function called `use`, which is no React hook.
    files: ["tests/e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // The n8n Code nodes' sources: fragments that workflows/n8n/build.ts joins into one
    // script per node, run in n8n's sandbox (CommonJS require, n8n's $ globals). A name
    // defined in shared.js is used in another file, so unused-vars cannot judge them;
    // the unit tests run the joined code.
    files: ["workflows/n8n/code/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        $env: "readonly",
        $input: "readonly",
        $execution: "readonly",
        $getWorkflowStaticData: "readonly",
        PROGRAM: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off", "@typescript-eslint/no-unused-vars": "off" },
  },
  globalIgnores([
    ".next/**",
    ".e2e-data/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
    "bench/.runs/**",
    // Stryker's sandbox (a copy of the project) and its reports.
    ".stryker-tmp/**",
    "reports/**",
  ]),
]);
