import { afterEach, vi } from "vitest";
import { pinRequestHeaders } from "./request-headers";

// "server-only" throws outside React's server bundle; the unit tests are server code.
vi.mock("server-only", () => ({}));
// Server actions read the request's headers; outside Next there is no request.
vi.mock("next/headers", () => import("./request-headers"));

afterEach(() => pinRequestHeaders(undefined));
