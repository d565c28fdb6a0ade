// The tests that pin the static values (tests/mutation/static.stryker.mjs): the
// project's Vitest settings, with only these files.
import base from "../../vitest.config.mts";

const config = {
  ...base,
  test: {
    ...base.test,
    include: [
      "server/env.test.ts",
      "server/consent/revoke-request.test.ts",
      "lib/forms/define.test.ts",
      "lib/forms/waitlist/schema.test.ts",
      "lib/forms/contact/schema.test.ts",
      "server/forms/waitlist-submission.test.ts",
    ],
  },
};

export default config;
