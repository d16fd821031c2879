import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ReportedTest, RunnerName, TestId, TestReport, TestStatus } from "./test-report.js";

/**
 * Collects tests while a parser reads a report and hands out keys at the end, so that identical
 * paths (the same title twice in one suite) are numbered in report order rather than merged.
 */
export class ReportBuilder {
  private readonly tests: Array<{ id: TestId; status: TestStatus }> = [];
  private readonly parseErrors: string[] = [];
  private readonly runErrors: string[] = [];
  private readonly notes: string[] = [];

  constructor(
    private readonly runner: RunnerName,
    /** The checkout the runner ran in: absolute file paths in the report are made relative to it. */
    private readonly root: string,
    private readonly source: TestReport["source"] = "reporter",
  ) {}

  add(file: string, suites: readonly string[], title: string, status: TestStatus): void {
    this.tests.push({ id: { file: this.relativeFile(file), suites: [...suites], title }, status });
  }

  parseError(message: string): void {
    this.parseErrors.push(message);
  }

  runError(message: string): void {
    this.runErrors.push(message);
  }

  note(message: string): void {
    this.notes.push(message);
  }

  get testCount(): number {
    return this.tests.length;
  }

  /** `complete` is false whenever any parse error was recorded. */
  finish(): TestReport {
    const seen = new Map<string, number>();
    const tests: ReportedTest[] = this.tests.map(({ id, status }) => {
      const base = testKey(id);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { id, key: n === 1 ? base : `${base}#${n}`, status };
    });
    return {
      runner: this.runner,
      source: this.source,
      complete: this.parseErrors.length === 0,
      tests,
      parse_errors: [...this.parseErrors],
      run_errors: [...this.runErrors],
      notes: [...this.notes],
    };
  }

  /** A report's file path as devflow names it: relative to the checkout, "/" separators. */
  relativeFile(file: string): string {
    return relativeTestFile(this.root, file);
  }
}

/** A runner's test file (absolute path, file URL or relative) as reports name it: relative to `root`, with `/`. */
export function relativeTestFile(root: string, file: string): string {
  const path = file.startsWith("file://") ? fileURLToPath(file) : file;
  const rel = isAbsolute(path) ? relative(root, path) : path;
  return rel.split(sep).join("/");
}

/** The full-path identity: JSON of [file, ...suites, title], unambiguous whatever the titles contain. */
export function testKey(id: TestId): string {
  return JSON.stringify([id.file, ...id.suites, id.title]);
}

/** A readable one-line name for summaries: "test/a.test.js > suite > title". */
export function displayName(id: TestId): string {
  return [id.file, ...id.suites, id.title].filter((part) => part !== "").join(" > ");
}

/** The report for a run whose report could not be read at all. */
export function unreadableReport(runner: RunnerName, reason: string): TestReport {
  const builder = new ReportBuilder(runner, "/");
  builder.parseError(reason);
  return builder.finish();
}
