import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ReportBuilder } from "./report-builder.js";
import type { PackageTestSetup, ParseOptions, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { insertAfter, optionWithValue, shellQuote, withoutOwn } from "./script-rewrite.js";
import type { TestReport } from "./test-report.js";

/**
 * `node --test`, allowing node options before `--test`, those that take their value as the next
 * word too: `node --import tsx --test` is how many TypeScript projects run node:test (stop 46: it
 * named no runner, and such a suite was judged from its console). node named by its path too
 * (`/usr/bin/node --test`, npm's `"$npm_node_execpath" --test`): judged from its console, such a
 * suite had no assertion ledger, and a forger the ledger refuses passed (review 59, attack 59b).
 */
const NODE_TEST =
  /(?:^|(?<=[\s;&|(]))(?:"?(?:[^\s;&|()"']*\/)?node"?|"?\$(?:npm_node_execpath|\{npm_node_execpath\})"?)(?:\s+(?:--import|--require|-r|--loader|--experimental-loader|--env-file|--conditions|-C)\s+[^\s;&|-][^\s;&|]*|\s+-[^\s;&|]+)*?\s+--test(?=\s|$)/g;

/**
 * The script's own reporters and their destinations (`--test-reporter=tap`): taken out, as jest's
 * own output file is, so the run takes devflow's reporters and the report route with its assertion
 * ledger. Refusing them sent such a script to the console, where nothing checks what node:test's
 * test processes report (stop 51, attack 58c).
 */
const OWN_REPORTER = optionWithValue("--test-reporter(?:-destination)?");

/** The reporter module devflow ships (outside any checkout under test). */
export const NODE_TEST_REPORTER = fileURLToPath(new URL("./node-test-reporter.mjs", import.meta.url));

const Event = z.discriminatedUnion("event", [
  z.object({
    event: z.enum(["test:start", "test:pass", "test:fail"]),
    name: z.string(),
    nesting: z.number().int().min(0),
    file: z.string().nullable(),
    type: z.string().nullable(),
    skip: z.boolean(),
    todo: z.boolean(),
  }),
  z.object({ event: z.literal("devflow:end") }),
]);

/**
 * node:test: devflow's own reporter (NDJSON with the file of every test) to the report file, and
 * `spec` to stdout for the log.
 */
export const nodeTestAdapter: RunnerAdapter = {
  runner: "node-test",
  invocation: NODE_TEST,
  nameFilter: /(?:^|\s)(?:--test-name-pattern|--test-skip-pattern|--test-only)(?=[=\s]|$)/,
  detect: (setup: PackageTestSetup) =>
    setup.script !== null && new RegExp(NODE_TEST.source).test(setup.script),
  command(baseCommand: string, reportPath: string): ReportRequest {
    const flags = [
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${shellQuote(NODE_TEST_REPORTER)}`,
      `--test-reporter-destination=${shellQuote(reportPath)}`,
    ].join(" ");
    const inserted = insertAfter(
      withoutOwn(baseCommand, NODE_TEST, OWN_REPORTER, "node --test"),
      NODE_TEST,
      flags,
      "node --test",
      /--test-reporter(?:-destination)?(?=[\s=])/,
    );
    return inserted.ok
      ? { kind: "report_file", runner: "node-test", command: inserted.command, reportPath }
      : { kind: "unsupported", runner: "node-test", reason: inserted.reason };
  },
  parse: parseNodeTestEvents,
};

export function parseNodeTestEvents(text: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder("node-test", root);
  // Titles of the tests and suites currently open, per file (files may interleave).
  const open = new Map<string, string[]>();
  let ended = false;
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  for (const [index, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      builder.parseError(`node:test report line ${index + 1} is not JSON (truncated?)`);
      continue;
    }
    const event = Event.safeParse(value);
    if (!event.success) {
      builder.parseError(`node:test report line ${index + 1} is not a known event`);
      continue;
    }
    const e = event.data;
    if (e.event === "devflow:end") {
      ended = true;
      continue;
    }
    const file = e.file ?? "";
    const stack = open.get(file) ?? [];
    open.set(file, stack);
    if (e.event === "test:start") {
      stack.length = e.nesting;
      stack[e.nesting] = e.name;
      continue;
    }
    if (e.type === "suite") continue;
    // A file that fails to load is reported as a failing "test" named after the file itself.
    if (e.event === "test:fail" && e.nesting === 0 && e.name === e.file) {
      builder.runError(`${builder.relativeFile(file)}: failed to load or run`);
      continue;
    }
    const status = e.todo ? "todo" : e.skip ? "skip" : e.event === "test:pass" ? "pass" : "fail";
    builder.add(file, stack.slice(0, e.nesting), e.name, status);
  }
  if (!ended)
    builder.parseError("node:test report has no end marker: the run was cut off or the report truncated");
  return builder.finish();
}
