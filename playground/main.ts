import { processIO, runCli } from "../src/index.js";

/**
 * `npm run eval`: the scenario suite, exactly `devflow playground` with the flags given after `--`
 * (cassettes by default); its last stdout line is `N passed, N failed`.
 */
process.exitCode = await runCli(["playground", ...process.argv.slice(2)], processIO());
