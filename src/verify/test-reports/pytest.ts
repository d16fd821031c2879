import { fileURLToPath } from "node:url";
import { parseJunitXml } from "./junit.js";
import type { PackageTestSetup, ReportRequest, RunnerAdapter } from "./runner-adapter.js";
import { insertAfter, shellQuote } from "./script-rewrite.js";

/**
 * pytest's invocation: `pytest`, `py.test`, `python -m pytest`, `python3 -m pytest` (a path to a
 * python binary too), so its arguments follow.
 */
const PYTEST =
  /(?:^|(?<=[\s;&|(]))(?:(?:\S*\/)?python[\d.]*\s+-m\s+pytest|(?:\S*\/)?py\.?test)(?=\s|$|[;&|)])/g;

/**
 * devflow's pytest plugins (../pytest-plugin/): the folder goes on PYTHONPATH for a run that loads
 * one, so nothing else of devflow becomes importable; read-only in a mount namespace.
 */
export const PYTEST_PLUGIN_DIR = fileURLToPath(new URL("../pytest-plugin/", import.meta.url));
/** The plugin that sends pytest's JUnit XML over devflow's report channel (ADR 0089). */
export const REPORT_CHANNEL_PLUGIN = "devflow_report_channel";

/**
 * A script that sets PYTHONPATH itself (`PYTHONPATH=src pytest`, `export PYTHONPATH=…`,
 * `env PYTHONPATH=… pytest`): the folder devflow puts on the run's PYTHONPATH is gone by the time
 * pytest starts, and pytest would refuse to start without the plugin.
 */
const OWN_PYTHONPATH = /(?:^|[\s;&|(])(?:export\s+)?PYTHONPATH=/;

/**
 * Runs the rest of its command line with devflow's plugin folder appended to the PYTHONPATH it was
 * started with (the folder alone when that is unset or empty: an empty entry would put the working
 * directory on sys.path).
 */
const PLUGIN_FOLDER_APPENDED = `/bin/sh -c ${shellQuote(
  `PYTHONPATH="\${PYTHONPATH:+$PYTHONPATH:}"${shellQuote(PYTEST_PLUGIN_DIR)}; export PYTHONPATH; exec "$@"`,
)} devflow-pytest-path`;

/**
 * `script` so that devflow's plugins can be imported by the pytest it runs. A script that does not
 * set PYTHONPATH is returned as it is (the run's environment has the folder). One that does gets
 * its pytest invocation started by a `/bin/sh` that appends the folder to whatever PYTHONPATH the
 * script gave pytest, so the project's own path still comes first and still works. Before stop 51
 * such a script kept pytest's report file and no canary (review 57's note: the watcher of attack
 * 54e could rewrite it). Null when the folder cannot be added: pytest is not invoked exactly once,
 * or its invocation is another program's argument (`coverage run -m pytest`), whose python that
 * program starts.
 */
export function withPluginFolderOnPythonpath(script: string): string | null {
  if (!OWN_PYTHONPATH.test(script)) return script;
  const matches = [...script.matchAll(new RegExp(PYTEST.source, "g"))];
  const at = matches.length === 1 ? matches[0]?.index : undefined;
  if (at === undefined || /(?:^|\s)-m\s*$/.test(script.slice(0, at))) return null;
  return `${script.slice(0, at)}${PLUGIN_FOLDER_APPENDED} ${script.slice(at)}`;
}

/**
 * pytest: `--junitxml=<file> -o junit_family=xunit1 -p devflow_report_channel`: devflow's plugin
 * connects to devflow's report channel when pytest imports it (before any conftest.py or test
 * module) and sends the XML pytest's junitxml plugin writes over it, never to the file (ADR 0089);
 * the file, in a directory the run may write, was rewritten by a process a test started after
 * pytest wrote it (attack 54e against pytest). A script that sets its own PYTHONPATH gets the
 * folder appended to it (`withPluginFolderOnPythonpath`); only one where that cannot be done
 * (`env PYTHONPATH=… coverage run -m pytest`) still has pytest write the file, and the channel's
 * protection does not hold for it. The xunit1 family is asked for because it
 * names each test's `file`, so a test's identity is file + class path + function (with its
 * parameters), the same in every checkout. A module pytest could not import is reported as a
 * testcase named after the module with the error "collection failure": that is a run error, not
 * a test (the run had no verdict for the module's tests).
 */
export const pytestAdapter: RunnerAdapter = {
  runner: "pytest",
  invocation: PYTEST,
  // Short flags combine (`-qk spaces`): those before `k`/`m` take no value (review, stop 31).
  nameFilter: /(?:^|\s)-[qvsxl]*[km](?=[=\s\w"'])|(?:^|\s)--keyword(?=[=\s])/,
  // Undoes `-x`/`--maxfail` where devflow's plugin (which undoes them from anywhere, `--sw` too)
  // cannot load; after the suite's own arguments, as the last one wins.
  runEveryTest: { args: ["--maxfail=0"], placement: "after_arguments" },
  detect: (setup: PackageTestSetup) => setup.script !== null && new RegExp(PYTEST.source).test(setup.script),
  command(baseCommand: string, reportPath: string): ReportRequest {
    const channel = withPluginFolderOnPythonpath(baseCommand) !== null;
    const inserted = insertAfter(
      baseCommand,
      PYTEST,
      `--junitxml=${shellQuote(reportPath)} -o junit_family=xunit1${channel ? ` -p ${REPORT_CHANNEL_PLUGIN}` : ""}`,
      "pytest",
      /(?:^|\s)--junit-?xml\b\S*/,
    );
    if (!inserted.ok) return { kind: "unsupported", runner: "pytest", reason: inserted.reason };
    return channel
      ? {
          kind: "report_file",
          runner: "pytest",
          command: withPluginFolderOnPythonpath(inserted.command) ?? inserted.command,
          reportPath,
          via: "channel",
          env: { PYTHONPATH: PYTEST_PLUGIN_DIR },
        }
      : { kind: "report_file", runner: "pytest", command: inserted.command, reportPath };
  },
  parse(text, options) {
    const report = parseJunitXml("pytest", text, options);
    const uncollected = new Set(
      [
        ...text.matchAll(
          /<testcase classname="" name="([^"]*)"[^>]*>\s*<error message="collection failure"/g,
        ),
      ].map((m) => m[1] ?? ""),
    );
    if (uncollected.size === 0) return report;
    return {
      ...report,
      tests: report.tests.filter((t) => !(uncollected.has(t.id.title) && t.id.suites.length <= 1)),
      run_errors: [...report.run_errors, ...[...uncollected].map((m) => `pytest could not collect ${m}`)],
    };
  },
};
