import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { cookieOf } from "@/server/console/cookie";
import {
  addOperator,
  changeRole,
  consoleActor,
  issueLink,
  listOperators,
  OperatorError,
  removeOperator,
} from "@/server/operators/operators";

/**
 * An owner adds an operator, issues a new enrolment link, changes a role or removes one (asked first), as
 * `npm run operators` does. An operator is named by id, never by address, in what comes back; a new link is shown
 * once, from a cookie of the console's that lives two minutes, never from the URL.
 */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "operators", role: "owner" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const { store } = checked.signed;
  const by = consoleActor(checked.signed);
  const back = (query: Record<string, string>) => seeOther(`/console/operators?${new URLSearchParams(query)}`);
  const target = (await listOperators(store)).find((operator) => operator.id === fields.get("id"));
  const adding = fields.get("do") === "add";
  if (!adding && !target) return back({ error: "unknown" });
  const email = adding ? (fields.get("email") ?? "") : target!.email;
  try {
    switch (fields.get("do")) {
      case "add":
      case "link": {
        const { operator, link } = adding
          ? await addOperator(store, { email, role: fields.get("role") ?? "", by })
          : await issueLink(store, { email, by });
        const answer = back({ done: adding ? "added" : "link" });
        const { name, attributes } = cookieOf("enrolment");
        const shown = encodeURIComponent(JSON.stringify({ email: operator.email, ...link }));
        answer.headers.append(
          "Set-Cookie",
          `${name}=${shown}; Path=${attributes.path}; Max-Age=120; HttpOnly; SameSite=Strict${attributes.secure ? "; Secure" : ""}`,
        );
        return answer;
      }
      case "role":
        await changeRole(store, { email, role: fields.get("role") ?? "", by });
        return back({ done: "role" });
      case "remove":
        if (fields.get("confirm") !== "remove") return back({ confirm: target!.id });
        await removeOperator(store, { email, by });
        return back({ done: "removed" });
      default:
        return back({ error: "unknown" });
    }
  } catch (error) {
    if (error instanceof OperatorError) return back({ error: error.code });
    throw error;
  }
}
