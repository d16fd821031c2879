import type { RunnerName, TestReport } from "./test-report.js";

/** What devflow knows about the project's test setup, read from the base's package.json. */
export interface PackageTestSetup {
  /** The test script's command line after following `npm run <name>` hops, or null. */
  script: string | null;
  /** Names from dependencies and devDependencies. */
  dependencies: readonly string[];
  /**
   * The scripts npm runs before `script` for `npm test`, in order: `pretest`, then `pre<name>` of
   * each script `test` delegates to with `npm run <name>`. Only those the package defines.
   */
  npmPreScripts?: readonly NpmScript[];
  /**
   * Why running `script` (after `npmPreScripts`) would not be what the package manager runs, or
   * null: a `pre<name>` of a yarn or pnpm hop (whether it runs depends on their version and
   * config), or npm's configuration (`$npm_config_x`) read by a script devflow would run.
   */
  notAsThePackageManagerRuns?: string | null;
  /**
   * What npm gives the test script from package.json (name, version, config, engines, bin, the
   * lifecycle event): path-free, so it holds for any checkout of the package.
   */
  npmEnv?: Readonly<Record<string, string>>;
  /** The script `script` is (`test`, or the last script a delegation reached). */
  scriptName?: string;
  /** Every script of the package, as package.json has them. */
  scripts?: Readonly<Record<string, string>>;
}

/** A package.json script by name, as npm runs it. */
export interface NpmScript {
  name: string;
  script: string;
}

/** How to run the project's tests so the runner also writes a report where devflow says. */
export type ReportRequest =
  | {
      kind: "report_file";
      runner: RunnerName;
      command: string;
      reportPath: string;
      /**
       * `channel`: the runner's reporter of devflow's sends the report over devflow's report channel
       * (../report-channel.ts, ADR 0089) and devflow writes it to `reportPath` after the run; the
       * run's own processes cannot rewrite it. Absent: the runner writes `reportPath` itself.
       */
      via?: "channel";
      /** Added to the run's environment for devflow's hook (its pytest plugin's folder on PYTHONPATH). */
      env?: Readonly<Record<string, string>>;
    }
  /** The script cannot be rewritten safely (runner invoked twice, piped output, ...): use the labelled stdout fallback. */
  | { kind: "unsupported"; runner: RunnerName; reason: string };

export interface ParseOptions {
  /** The checkout the runner ran in; report paths are made relative to it so keys match across checkouts. */
  root: string;
}

/** One test runner: recognise it, ask it for a report, read the report. */
export interface RunnerAdapter {
  runner: RunnerName;
  /** Matches the runner's invocation in a script (the binary, plus `run` for vitest): its arguments follow. */
  invocation: RegExp;
  /**
   * The runner's flags that select tests by name or mark (`-t`, `--grep`, `-k`), read in the
   * arguments after the invocation: a run with one deselects any test devflow adds (the seam canary).
   */
  nameFilter?: RegExp;
  /**
   * The same filter set in the runner's config rather than the command (jest/vitest
   * `testNamePattern`, mocha `grep`/`fgrep`), matched in a config's text. pytest's config sets it
   * through `addopts`, read with `nameFilter`.
   */
  configNameFilter?: RegExp;
  /**
   * Arguments that make the runner run every test however the project told it to stop at a first
   * failure (`--bail`, `-x`), so that they win over the command's and the config's (ADR 0083).
   * Regression's runs only: base's and the attempt's must both reach every test to be compared
   * test by test.
   * - `placement`: right after the invocation, as the report flags go (the command's own copy of
   *   the flag taken out first, `replaces`, so none comes after); or after the runner's last
   *   argument, where a position is only a best effort (the argument is a second line of defence,
   *   as pytest's, whose plugin does the work). A scan for the end of the runner's arguments that
   *   starts at the runner does not know that the runner sits inside a quoted `sh -c '…'` or
   *   before a `#` comment (review, stop 44).
   * - `replaces`: the command's own copy of the flag, taken out of the runner's arguments.
   * - `since`: the runner's package and the first version that knows the arguments (an older
   *   runner would refuse to start: vitest before 0.31 has no `--bail`).
   */
  runEveryTest?: {
    args: readonly string[];
    placement: "after_invocation" | "after_arguments";
    replaces?: RegExp;
    since?: { package: string; version: string };
  };
  /** True when the test script invokes this runner. */
  detect(setup: PackageTestSetup): boolean;
  /**
   * The test script with this runner's report flags added, to run in the checkout's root with
   * `node_modules/.bin` on PATH (as npm would). `reportPath` must be outside the checkout.
   */
  command(baseCommand: string, reportPath: string): ReportRequest;
  parse(reportText: string, options: ParseOptions): TestReport;
}
