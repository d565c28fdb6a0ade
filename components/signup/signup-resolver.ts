import { zodResolver } from "@hookform/resolvers/zod";
import { signupSchema } from "./signup-schema";

/** Loaded on demand by the sign-up form: zod stays out of the page's first load. */
export const signupResolver = zodResolver(signupSchema);
