import { vi } from "vitest";

// "server-only" throws outside React's server bundle; the unit tests are server code.
vi.mock("server-only", () => ({}));
