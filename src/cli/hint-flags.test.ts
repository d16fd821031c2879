import { describe, expect, it } from "vitest";
import { ERROR_CATEGORIES, ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { DevflowError } from "../errors/index.js";
import { EndpointFault, type FaultKind } from "../models/endpoint-fetch.js";
import { describeModelError } from "../models/model-errors.js";
import { buildProgram } from "./program.js";
import { reportError } from "./report-error.js";

/**
 * Regression: `devflow route` failures told the user to "continue with --resume", a flag route does
 * not have. Cause: the category hints were written for iterate. Fix: reportError picks the hint by
 * whether the command has --resume (program.ts). This test parses every flag a hint or an endpoint
 * message suggests and looks it up in the real commander program, for every command.
 */

const program = buildProgram({ out: () => {}, err: () => {}, isTTY: false, setExitCode: () => {} });
const commands = program.commands.map((command) => ({
  name: command.name(),
  flags: new Set(command.options.flatMap((o) => (o.long === undefined ? [] : [o.long]))),
}));
const suggestedFlags = (text: string): string[] => text.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [];

// One code per category is enough: the category decides the CLI's hint.
const codeOf = (category: string): ErrorCode =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code] === category) ?? "INTERNAL";

function errorOf(code: ErrorCode): Error {
  if (code === "MODEL_NO_VALID_ANSWER")
    return new DevflowError(code, "no answer", { details: { role: "router" } });
  if (code === "REPLAY_EXHAUSTED")
    return new DevflowError(code, "cassette ran out", { details: { role: "router", callNumber: 2 } });
  // Codes with other details are never reported by category alone; a plain one stands in.
  return new DevflowError("INTERNAL", `stands in for ${code}`);
}

describe("every flag an error hint suggests exists on the command that printed it", () => {
  for (const command of commands) {
    it(`devflow ${command.name}`, () => {
      const resumable = command.flags.has("--resume");
      for (const category of ERROR_CATEGORIES) {
        const lines: string[] = [];
        reportError(errorOf(codeOf(category)), (l) => lines.push(l), { resumable });
        for (const flag of suggestedFlags(lines.join("\n")))
          expect(command.flags, `${category}: ${lines.join(" / ")}`).toContain(flag);
      }
    });
  }

  it("the endpoint messages suggest only flags every model-calling command has (they name env vars)", () => {
    const kinds: FaultKind[] = ["stall", "truncated", "reset", "not_json", "no_choices"];
    const messages = [
      ...kinds.map((kind) => describeModelError(new EndpointFault(kind, "detail", 3, 4000))),
      ...[401, 403, 404, 429, 500, 503, 400].map((status) =>
        describeModelError(Object.assign(new Error("x"), { status })),
      ),
      describeModelError(Object.assign(new Error("x"), { name: "TimeoutError" })),
    ];
    const modelCommands = commands.filter((c) => ["route", "iterate", "chat"].includes(c.name));
    expect(modelCommands).toHaveLength(3);
    for (const message of messages)
      for (const flag of suggestedFlags(message))
        for (const command of modelCommands) expect(command.flags, message).toContain(flag);
  });

  it("route, iterate and chat take the endpoint limit flags", () => {
    for (const name of ["route", "iterate", "chat"]) {
      const flags = commands.find((c) => c.name === name)?.flags;
      for (const flag of ["--model-timeout", "--model-budget", "--model-retries"])
        expect(flags).toContain(flag);
    }
  });
});
