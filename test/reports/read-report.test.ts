import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jestAdapter } from "../../src/verify/test-reports/jest.js";
import { readReportFile, removeStaleReport } from "../../src/verify/test-reports/read-report.js";

describe("readReportFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "devflow-report-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("a report that was never written is incomplete, naming the file", async () => {
    const report = await readReportFile(jestAdapter, join(dir, "r.json"), dir);
    expect(report.complete).toBe(false);
    expect(report.parse_errors[0]).toMatch(/the jest report was not written \(ENOENT\): .*r\.json/);
  });

  it("an empty report is incomplete; a stale one is removed before the run", async () => {
    const path = join(dir, "r.json");
    await writeFile(path, "  \n");
    expect((await readReportFile(jestAdapter, path, dir)).parse_errors[0]).toMatch(/report is empty/);
    await removeStaleReport(path);
    expect((await readReportFile(jestAdapter, path, dir)).parse_errors[0]).toMatch(/not written/);
    await removeStaleReport(path); // nothing left to remove is fine
  });
});
