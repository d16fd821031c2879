import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { type ConfigKey, DEFAULTS } from "./settings.js";

/**
 * A repository's config file is untrusted input (ADR 0047, ADR 0021): the repository may come from
 * a URL or from anyone's checkout. It may tune how long and how often devflow works on it, never
 * where the model key goes, what runs as the coder, or whether code runs at commit time. For each
 * key it may not set (with that value), the reason, which names the harm. `null`: allowed.
 */
const UNTRUSTED_REFUSAL: Partial<Record<ConfigKey, (value: unknown) => string | null>> = {
  "model.base_url": () => "it would send your model key and the repository's code to another endpoint",
  "model.api_key_env": () =>
    "it would send the value of another of your environment variables to the model endpoint",
  "coder.backend": (value) =>
    typeof value === "string" && value.trim().startsWith("command:")
      ? "a command: coder runs any shell command the repository names"
      : null,
  "commit.hooks": (value) => (value === true ? "hooks run code at commit time" : null),
  "tests.seam_runs": (value) =>
    typeof value === "number" && value < DEFAULTS["tests.seam_runs"]
      ? `fewer seam runs than ${DEFAULTS["tests.seam_runs"]} let a flaky seam pass verification`
      : null,
  "tests.seam_data_folder_limit": (value) =>
    typeof value === "number" && value < DEFAULTS["tests.seam_data_folder_limit"]
      ? "a lower limit leaves more of the seam's test data unprotected from a coder's edits"
      : null,
  trust_repo_config: () => "only your own config decides which repositories are trusted",
};

/** Keys a repository's file may never set, even when trusted. */
const USER_ONLY: ReadonlySet<ConfigKey> = new Set(["trust_repo_config"]);

/** Whether the user's `trust_repo_config` covers this repository root. */
export function repoIsTrusted(trust: boolean | string[], repoRoot: string): boolean {
  if (trust === true) return true;
  if (trust === false) return false;
  const root = canonical(repoRoot);
  return trust.some((entry) => canonical(entry) === root);
}

/**
 * Refuses a repository file that sets what only the user may: one line naming the file, the key,
 * why, and how to allow it.
 */
export function assertRepoSettingsAllowed(
  settings: Partial<Record<ConfigKey, unknown>>,
  file: string,
  repoRoot: string,
  trusted: boolean,
  userFile: string,
): void {
  for (const [key, value] of Object.entries(settings) as [ConfigKey, unknown][]) {
    if (trusted && !USER_ONLY.has(key)) continue;
    const why = UNTRUSTED_REFUSAL[key]?.(value);
    if (!why) continue;
    const allow = USER_ONLY.has(key)
      ? `set it in ${userFile}`
      : `set it in ${userFile}, or trust this repository's config there: "trust_repo_config": [${JSON.stringify(repoRoot)}]`;
    throw new DevflowError(
      "CONFIG_UNTRUSTED",
      `${file}: ${key} may not be set by a repository's config (${why}); ${allow}`,
    );
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
