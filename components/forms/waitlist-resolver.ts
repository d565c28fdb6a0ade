import { zodResolver } from "@hookform/resolvers/zod";
import * as z from "zod/mini";
import { waitlistSchema } from "@/lib/forms/waitlist";

/** Loaded on demand by the waitlist form: zod stays out of the page's first load. */
export const waitlistResolver = zodResolver(waitlistSchema(z));
