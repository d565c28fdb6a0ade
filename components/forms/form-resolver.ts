import { zodResolver } from "@hookform/resolvers/zod";
import type { FieldValues, Resolver } from "react-hook-form";
import type * as z from "zod/mini";
import type { PhonePolicy } from "@/lib/forms/phone";

let made: { key: string; resolver: unknown } | undefined;

type Schema<Values, Lead> = (policy: PhonePolicy) => Promise<z.ZodMiniType<Lead, Values>>;

/**
 * A form's schema as react-hook-form runs it, made once for the page's phone
 * policy. Loaded on demand by the form: zod and the phone metadata stay out of
 * the page's first load.
 */
export async function formResolver<Values extends FieldValues, Lead extends FieldValues>(
  definition: { name: string; schema: Schema<Values, Lead> },
  policy: PhonePolicy,
) {
  const key = `${definition.name} ${JSON.stringify(policy)}`;
  if (made?.key !== key) made = { key, resolver: zodResolver(await definition.schema(policy)) };
  return made.resolver as Resolver<Values, unknown, Lead>;
}
