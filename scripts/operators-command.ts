/**
 * The console's operators from the server's shell (`npm run operators`): add, list, remove, and a new enrolment link,
 * by the same functions as the console's Operators page (docs/operating.md, "The console").
 */
import { parseArgs } from "node:util";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { addOperator, commandActorAs, issueLink, listOperators, removeOperator } from "@/server/operators/operators";
import { safeSinks } from "./safe-output";

const usage = `Usage:
  npm run operators -- add EMAIL --role owner|viewer   add an operator; prints their one-time enrolment link (15 minutes)
  npm run operators -- list [--json]                   every operator, their role and how many passkeys they registered
  npm run operators -- link EMAIL                      a new enrolment link (a lost passkey, a new device)
  npm run operators -- remove EMAIL                    remove an operator: their passkeys and sessions end at once

An enrolment link signs no one in by itself: opening it registers a passkey
for that operator, on the device that opens it. Send it over a channel you trust.

add, link and remove take --as EMAIL: the activity log names that operator instead of the machine's user.`;

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: {
      role: { type: "string" },
      json: { type: "boolean" },
      as: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });

const minutesLeft = (at: number) => Math.round((at - Date.now()) / 60_000);

export async function operatorsCommand(
  args: string[],
  rawPrint: (line: string) => void,
  rawWrite: (text: string) => void,
) {
  const { print } = safeSinks(rawPrint, rawWrite);
  const { values, positionals } = parse(args);
  const [command = "list", email] = positionals;
  if (values.help) return print(usage);
  const needsEmail = () => {
    if (!email) throw new Error(`${command} needs an operator's email address\n${usage}`);
    return email;
  };
  const store = await database(readEnv());
  switch (command) {
    case "add": {
      if (!values.role) throw new Error(`add needs --role owner or --role viewer\n${usage}`);
      const { operator, link } = await addOperator(store, {
        email: needsEmail(),
        role: values.role,
        by: commandActorAs(values.as),
      });
      print(`Added ${operator.email} as ${operator.role}.`);
      print(`Their enrolment link, good once, for ${minutesLeft(link.expiresAt)} minutes:`);
      return print(link.url);
    }
    case "link": {
      const { operator, link } = await issueLink(store, { email: needsEmail(), by: commandActorAs(values.as) });
      print(`A new enrolment link for ${operator.email}, good once, for ${minutesLeft(link.expiresAt)} minutes:`);
      return print(link.url);
    }
    case "remove": {
      const operator = await removeOperator(store, { email: needsEmail(), by: commandActorAs(values.as) });
      return print(`Removed ${operator.email} (${operator.role}): their passkeys and sessions are gone.`);
    }
    case "list": {
      const operators = await listOperators(store);
      if (values.json)
        return print(
          JSON.stringify(
            operators.map(({ email: address, role, passkeys, createdAt }) => ({
              email: address,
              role,
              passkeys,
              createdAt: new Date(createdAt).toISOString(),
            })),
          ),
        );
      if (operators.length === 0) return print("No operators yet: npm run operators -- add EMAIL --role owner");
      for (const operator of operators)
        print(
          `${operator.email}  ${operator.role}  ${operator.passkeys === 0 ? "no passkey yet" : `${operator.passkeys} passkey${operator.passkeys === 1 ? "" : "s"}`}  added ${new Date(operator.createdAt).toISOString().slice(0, 10)}`,
        );
      return;
    }
    default:
      throw new Error(`unknown command ${command}\n${usage}`);
  }
}
