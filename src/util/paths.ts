import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** devflow's own install root (where agents/, schemas/ and scenarios/ live), not the user's repo. */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
