import { userInfo } from "node:os";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { activityPage } from "@/server/operators/activity-store";
import { linkOperator } from "@/server/operators/operator-store";
import { commandOutput } from "@/tests/support/command-output";
import { operatorsCommand } from "./operators-command";

const operators = (...args: string[]) => commandOutput(operatorsCommand, args);
const store = () => database(readEnv());
const linkIn = (stdout: string) => /^http:\/\/\S+\/console\/enrol\/([\w-]+)$/m.exec(stdout)?.[1];

describe("npm run operators", () => {
  it("adds an owner and prints a link that opens their enrolment, lists them, issues a new link, removes them", async () => {
    const added = await operators("add", "Owner@Sous.Example", "--role", "owner");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /^Added owner@sous\.example as owner\.\nTheir enrolment link, good once, for 15 minutes:\n/,
    );
    const token = linkIn(added.stdout);
    expect((await linkOperator(await store(), token!))?.operator.email).toBe("owner@sous.example");

    expect((await operators("list")).stdout).toMatch(
      /^owner@sous\.example {2}owner {2}no passkey yet {2}added \d{4}-\d\d-\d\d\n$/,
    );
    expect(JSON.parse((await operators("list", "--json")).stdout)).toStrictEqual([
      { email: "owner@sous.example", role: "owner", passkeys: 0, createdAt: expect.any(String) },
    ]);

    const again = await operators("link", "owner@sous.example", "--as", "partner@sous.example");
    expect(again.stdout).toContain("A new enrolment link for owner@sous.example, good once, for 15 minutes:");
    expect(linkIn(again.stdout)).not.toBe(token);

    // The last owner stays, from the shell too; beside a second owner, they go.
    expect(await operators("remove", "owner@sous.example")).toMatchObject({
      code: 1,
      stderr: "owner@sous.example is the last owner: add another owner first",
    });
    expect((await operators("add", "second@sous.example", "--role", "owner")).code).toBe(0);
    expect((await operators("remove", "owner@sous.example")).stdout).toBe(
      "Removed owner@sous.example (owner): their passkeys and sessions are gone.\n",
    );
    expect((await operators("list")).stdout).toMatch(/^second@sous\.example {2}owner /);
    const log = await activityPage(await store(), { limit: 4 });
    // Each by the machine's user who ran it, or by the operator --as names.
    expect(log.map(({ actor, action }) => `${actor} ${action}`)).toStrictEqual([
      `${userInfo().username} operator removed`,
      `${userInfo().username} operator added`,
      "partner@sous.example link issued",
      `${userInfo().username} operator added`,
    ]);
  });

  it("refuses bad input with a clear message and changes nothing", async () => {
    const before = await operators("list", "--json");
    const refusals: Array<[string[], string]> = [
      [["add", "someone@sous.example"], "add needs --role owner or --role viewer"],
      [["add", "someone@sous.example", "--role", "admin"], "The role is one of owner, viewer"],
      [["add", "--role", "viewer"], "add needs an operator's email address"],
      [["add", "not an address", "--role", "viewer"], "That is not an email address"],
      [["remove", "nobody@sous.example"], "nobody@sous.example is not an operator"],
      [["link", "nobody@sous.example"], "nobody@sous.example is not an operator"],
      [["promote", "someone@sous.example"], "unknown command promote"],
      [["add", "someone@sous.example", "--role", "viewer", "--as", "the founder"], "That is not an email address"],
    ];
    for (const [args, message] of refusals) {
      const result = await operators(...args);
      expect(result, args.join(" ")).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr.split("\n")[0], args.join(" ")).toBe(message);
    }
    expect(await operators("list", "--json")).toStrictEqual(before);
    // Its working twin: the same address with a role is added.
    expect((await operators("add", "someone@sous.example", "--role", "viewer")).code).toBe(0);
  });

  it("runs as npm run operators, and exits 1 with its message when a call is wrong", async () => {
    const run = promisify(execFile);
    const { stdout } = await run("npm", ["run", "--silent", "operators", "--", "--help"], { timeout: 60_000 });
    expect(stdout).toContain("npm run operators -- add EMAIL --role owner|viewer");
    await expect(
      run("npm", ["run", "--silent", "operators", "--", "remove"], { timeout: 60_000 }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("remove needs an operator's email address") });
  }, 60_000);
});
