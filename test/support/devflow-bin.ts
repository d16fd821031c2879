import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/**
 * The `devflow` executable as users get it: bin/devflow.js running the compiled build (dist/) in
 * process (ADR 0042). CLI tests that spawn devflow spawn this, so `npm test` (which builds first)
 * checks the build; a missing or stale build fails them with the launcher's `npm run build` line.
 */
export const DEVFLOW_BIN = join(PACKAGE_ROOT, "bin", "devflow.js");
