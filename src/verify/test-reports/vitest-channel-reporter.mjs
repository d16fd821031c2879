// devflow's reporter for vitest: vitest's own JSON reporter, whose report goes over devflow's report
// channel (ADR 0089) instead of to a file the run could rewrite after vitest wrote it (attack 54e's
// route). It extends the JsonReporter of the vitest that runs, so the JSON is vitest's, field for
// field, less the coverage map; only `writeReport` changes. The connection opens when vitest makes
// its reporters, before any test file runs (report-channel-client.cjs). Loaded by vitest from
// devflow's install, never from the checkout under test.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const { openReportConnection } = require("./report-channel-client.cjs");

const { JsonReporter } = await import(pathToFileURL(runningVitestReporters()).href);

/**
 * The `reporters` entry of the vitest that runs: its package found up from the script node runs
 * (`process.argv[1]`, vitest's own bin, links resolved), not from the working directory, which may
 * see another copy. Read from its package.json's exports: vitest 0.34 exports it for `import` only,
 * which `require.resolve` cannot follow; 0.31 to 0.33 export none, and devflow says so.
 */
function runningVitestReporters() {
  let dir = dirname(realpathSync(process.argv[1]));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, "utf8"));
      if (pkg.name === "vitest") {
        const entry = pkg.exports?.["./reporters"];
        const file = typeof entry === "string" ? entry : (entry?.import ?? entry?.default);
        if (typeof file !== "string")
          throw new Error(
            `vitest ${pkg.version} exports no reporters: devflow's vitest report needs vitest 0.34 or later`,
          );
        return join(dir, file);
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no vitest package above ${process.argv[1]}`);
    dir = parent;
  }
}

export default class DevflowChannelReporter extends JsonReporter {
  // vitest gives a reporter named by path no options in some versions; JsonReporter reads them.
  constructor(options) {
    super(options ?? {});
    this.connection = openReportConnection();
  }

  // The coverage map is no test result, and can be most of a large project's report.
  onCoverage() {}

  async writeReport(report) {
    await this.connection.send(report);
  }
}
