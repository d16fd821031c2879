import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseJson } from "./json-text.js";
import { ReportBuilder } from "./report-builder.js";
import type { PackageTestSetup, ParseOptions, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { binaryPattern, insertAfter, shellQuote } from "./script-rewrite.js";
import type { TestReport } from "./test-report.js";

const MOCHA = binaryPattern("_?mocha");

/** devflow's `--require` that keeps every suite from stopping at its first failure (ADR 0083). */
export const NO_SUITE_BAIL = fileURLToPath(new URL("./mocha-no-suite-bail.cjs", import.meta.url));

/** devflow's `--require` that connects to devflow's report channel before any spec file loads (ADR 0089). */
export const MOCHA_CHANNEL_CONNECT = fileURLToPath(new URL("./mocha-channel-connect.cjs", import.meta.url));
/** devflow's mocha reporter: `json`'s report over that connection (ADR 0089). */
export const MOCHA_CHANNEL_REPORTER = fileURLToPath(new URL("./mocha-channel-reporter.cjs", import.meta.url));

const MochaTest = z.object({
  title: z.string(),
  fullTitle: z.string(),
  file: z.string().optional(),
  err: z.record(z.string(), z.unknown()).optional(),
});
type MochaTest = z.infer<typeof MochaTest>;

/** The report of devflow's reporter: the fields of mocha's built-in `json` reporter devflow reads. */
const MochaJson = z.object({
  stats: z.object({ tests: z.number() }),
  tests: z.array(MochaTest),
  pending: z.array(MochaTest),
  failures: z.array(MochaTest),
});

export const mochaAdapter: RunnerAdapter = {
  runner: "mocha",
  invocation: MOCHA,
  nameFilter: /(?:^|\s)(?:-g|--grep|-f|--fgrep)(?=[=\s]|$)/,
  configNameFilter: /(?:^|[\s{,"'])f?grep["']?\s*[:=]/m,
  // `--no-bail` since mocha 6 (its yargs command line; mocha 5's commander has no negation). The
  // `--require` is what holds: it makes every suite's bail read false, the root's included (the
  // command's own `--bail` sets it through the same setter), and a suite's own `this.bail(true)`.
  runEveryTest: {
    args: ["--no-bail", "--require", shellQuote(NO_SUITE_BAIL)],
    placement: "after_invocation",
    since: { package: "mocha", version: "6.0.0" },
  },
  detect: (setup: PackageTestSetup) => setup.script !== null && new RegExp(MOCHA.source).test(setup.script),
  /**
   * `--require <connect> --reporter <devflow's>`: the connection to devflow's report channel is made
   * before mocha loads a spec file, and the report goes over it (ADR 0089). mocha's own
   * `--reporter json --reporter-option output=<file>` wrote into a directory the run may write,
   * where a process a test started rewrote it after mocha wrote it (attack 54e against mocha).
   */
  command(baseCommand: string, reportPath: string): ReportRequest {
    const flags = `--require ${shellQuote(MOCHA_CHANNEL_CONNECT)} --reporter ${shellQuote(MOCHA_CHANNEL_REPORTER)}`;
    // A `--reporter` before the invocation is a wrapper's (`nyc`, `c8`), not mocha's.
    const inserted = insertAfter(
      baseCommand,
      MOCHA,
      flags,
      "mocha",
      /(?:^|\s)["']?(?:--reporter|-R)["']?(?=[\s=])/,
      "own_arguments",
    );
    return inserted.ok
      ? { kind: "report_file", runner: "mocha", command: inserted.command, reportPath, via: "channel" }
      : { kind: "unsupported", runner: "mocha", reason: inserted.reason };
  },
  parse: parseMochaJson,
};

/**
 * mocha's JSON names a test by `title` and `fullTitle` (suite titles and title joined by single
 * spaces), so the suite path is kept as one element: the full title without the test's own title.
 * That is exact for identity (file + full title), only not split per suite.
 */
export function parseMochaJson(text: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder("mocha", root);
  builder.note("mocha's JSON reporter joins suite titles with spaces: suites hold the joined parent title");
  const json = parseJson(text);
  if (!json.ok) {
    builder.parseError(`mocha JSON report is not valid JSON (truncated?): ${json.error}`);
    return builder.finish();
  }
  const report = MochaJson.safeParse(json.value);
  if (!report.success) {
    builder.parseError(`mocha JSON report has an unexpected shape: ${report.error.issues[0]?.message ?? ""}`);
    return builder.finish();
  }
  const { stats, tests, pending, failures } = report.data;
  const pendingKeys = new Set(pending.map(identity));
  const testKeys = new Set(tests.map(identity));
  const failedNames = failedIdentities(tests, failures);
  for (const test of tests) {
    const failed = hasError(test) || failedNames.has(identity(test));
    const status = failed ? "fail" : pendingKeys.has(identity(test)) ? "skip" : "pass";
    builder.add(test.file ?? "", parentTitle(test), test.title, status);
  }
  // Hook failures ("before all" hook for ...) are failures without a test of their own.
  for (const failure of failures) {
    if (!testKeys.has(identity(failure)))
      builder.runError(`${builder.relativeFile(failure.file ?? "")}: ${failure.fullTitle}`);
  }
  if (stats.tests !== tests.length)
    builder.parseError(`mocha reported ${stats.tests} tests in its stats but listed ${tests.length}`);
  return builder.finish();
}

/**
 * The identities among `tests` that mocha lists in `failures` more often than tests of that
 * identity carry an error. mocha's `failures` array is what decides a failure: the `err` it writes
 * for a test can be empty (`{}`) for a thrown object with no own properties, as it is for every
 * passing test (review attack44: a bug left in place read as a pass). Tests of the same identity
 * (same file and full title) cannot be told apart there, so a failure not matched by an error
 * counts against every one of them: fail closed, never a pass.
 */
function failedIdentities(tests: readonly MochaTest[], failures: readonly MochaTest[]): Set<string> {
  const unmatched = new Map<string, number>();
  for (const failure of failures)
    unmatched.set(identity(failure), (unmatched.get(identity(failure)) ?? 0) + 1);
  for (const test of tests)
    if (hasError(test) && unmatched.has(identity(test)))
      unmatched.set(identity(test), (unmatched.get(identity(test)) ?? 0) - 1);
  return new Set([...unmatched].filter(([, n]) => n > 0).map(([id]) => id));
}

function hasError(test: MochaTest): boolean {
  return test.err !== undefined && Object.keys(test.err).length > 0;
}

function identity(test: MochaTest): string {
  return `${test.file ?? ""}\u0000${test.fullTitle}`;
}

function parentTitle(test: MochaTest): string[] {
  const parent = test.fullTitle.endsWith(test.title)
    ? test.fullTitle.slice(0, test.fullTitle.length - test.title.length).trimEnd()
    : "";
  return parent === "" ? [] : [parent];
}
