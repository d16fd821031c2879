export {
  type ComparedTest,
  type CompareOptions,
  compareReports,
  failingKeys,
  type NowStatus,
  type RegressionComparison,
  type ReportComparison,
  type SeamComparison,
} from "./compare-reports.js";
export { detectRunner, RUNNER_ADAPTERS, type RunnerDetection } from "./detect-runner.js";
export { jestAdapter } from "./jest.js";
export { parseJunitXml } from "./junit.js";
export { mochaAdapter } from "./mocha.js";
export { NODE_TEST_REPORTER, nodeTestAdapter } from "./node-test.js";
export { readPackageTestSetup } from "./package-setup.js";
export { PYTEST_PLUGIN_DIR, pytestAdapter, withPluginFolderOnPythonpath } from "./pytest.js";
export { readReportFile, removeStaleReport } from "./read-report.js";
export { displayName, testKey, unreadableReport } from "./report-builder.js";
export type { PackageTestSetup, ParseOptions, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
export { parseStdoutFallback } from "./stdout-fallback.js";
export { tapeAdapter } from "./tape.js";
export { ReportedTest, RunnerName, TestId, TestReport, TestStatus } from "./test-report.js";
export { vitestAdapter } from "./vitest.js";
