import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ReportBuilder } from "./report-builder.js";
import type { ParseOptions } from "./runner-adapter.js";
import type { RunnerName, TestReport, TestStatus } from "./test-report.js";

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  isArray: (name) => name === "testsuite" || name === "testcase",
});

/**
 * Reads JUnit XML (mocha `xunit`, jest-junit, pytest `--junitxml`, node's `junit`, ...): suites
 * are the nested `<testsuite>` names, plus the test's `classname` when it adds something; file is
 * the nearest `file` attribute. XML that does not validate (a cut-off file) is incomplete.
 */
export function parseJunitXml(runner: RunnerName, text: string, { root }: ParseOptions): TestReport {
  const builder = new ReportBuilder(runner, root);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    builder.parseError(
      `JUnit XML is not well-formed (truncated?): ${valid.err.msg} at line ${valid.err.line}`,
    );
    return builder.finish();
  }
  const doc = parser.parse(text) as XmlNode;
  const top = (doc.testsuites ?? doc) as XmlNode;
  if (!Array.isArray(top.testsuite) && !Array.isArray(top.testcase)) {
    builder.parseError("JUnit XML has neither <testsuite> nor <testcase> elements");
    return builder.finish();
  }
  walk(builder, top, [], "");
  return builder.finish();
}

function walk(builder: ReportBuilder, node: XmlNode, suites: string[], file: string): void {
  for (const testcase of asNodes(node.testcase)) {
    // No name at all is no test: pytest writes `<testcase time="0.000" />` when a hook ends the run
    // (`pytest.exit`) inside a test's report (review, stop 45, attack 48). Counted as a passing test
    // named after its suite, it went "missing" from every run that got further. One that failed is
    // a failure of the run, kept as such.
    if (testcase["@_name"] === undefined) {
      if (statusOf(testcase) === "fail") builder.runError("a <testcase> without a name reports a failure");
      continue;
    }
    const title = attr(testcase, "name");
    const classname = attr(testcase, "classname");
    const path = classname !== "" && classname !== suites.at(-1) ? [...suites, classname] : suites;
    builder.add(attr(testcase, "file") || file, path, title, statusOf(testcase));
  }
  for (const suite of asNodes(node.testsuite)) {
    const name = attr(suite, "name");
    walk(builder, suite, name === "" ? suites : [...suites, name], attr(suite, "file") || file);
  }
}

function statusOf(testcase: XmlNode): TestStatus {
  if ("failure" in testcase || "error" in testcase) return "fail";
  if ("skipped" in testcase) {
    const skipped = testcase.skipped;
    return typeof skipped === "object" && skipped !== null && attr(skipped as XmlNode, "type") === "todo"
      ? "todo"
      : "skip";
  }
  return "pass";
}

function asNodes(value: unknown): XmlNode[] {
  return Array.isArray(value) ? value.filter((v): v is XmlNode => typeof v === "object" && v !== null) : [];
}

function attr(node: XmlNode, name: string): string {
  const value = node[`@_${name}`];
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}
