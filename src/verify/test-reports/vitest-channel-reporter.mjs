// devflow's reporter for vitest: vitest's own JSON reporter, whose report goes over devflow's report
// channel (ADR 0089) instead of to a file the run could rewrite after vitest wrote it (attack 54e's
// route). It extends the JsonReporter of the vitest that runs (resolved from the project's root, as
// vitest itself was), so the JSON is vitest's, field for field; only `writeReport` changes. The
// connection opens when vitest makes its reporters, before any test file runs
// (report-channel-client.cjs). Loaded by vitest from devflow's install, never from the checkout.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const { openReportConnection } = require("./report-channel-client.cjs");

const fromProject = createRequire(join(process.cwd(), "package.json"));
const { JsonReporter } = await import(pathToFileURL(fromProject.resolve("vitest/reporters")).href);

export default class DevflowChannelReporter extends JsonReporter {
  // vitest gives a reporter named by path no options in some versions; JsonReporter reads them.
  constructor(options) {
    super(options ?? {});
    this.connection = openReportConnection();
  }

  async writeReport(report) {
    await this.connection.send(report);
  }
}
