import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CODER_ENV } from "../../src/coders/cli/env-options.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { tempDir } from "./lane-harness.js";

/** The fix the stub makes once it works (the csv-import fixture's bug). */
const FIX = {
  path: "src/csv-import.js",
  find: "if (!EMAIL.test(row.email))",
  replace: "if (!EMAIL.test(row.email.trim()))",
};

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

export interface ProviderStopCoder {
  /** Put first on PATH: its `claude` is the claude stub (test/stubs/claude.mjs) behind a wrapper. */
  bin: string;
  /** The env a devflow process needs to resolve and trust that `claude` (fake key, no machine settings). */
  env: Record<string, string>;
  /** Coder runs so far (`--version` probes not counted). */
  runs: () => number;
}

/**
 * A `claude` whose first `failures` runs stop with `scenario` (the stub's structured 429 or 401,
 * `api_error_status`) and whose later runs make the real fix; `failures: Infinity` never works.
 * The runner hands a CLI only allowlisted variables, so the choice is made in the wrapper, counted in
 * a file beside it.
 */
export function providerStopCoder(
  failures: number,
  scenario: "rate_limit" | "auth" = "rate_limit",
): ProviderStopCoder {
  const dir = tempDir("devflow-provider-stop-");
  const spec = join(dir, "edit-spec.json");
  const starts = join(dir, "starts");
  writeFileSync(spec, JSON.stringify(FIX));
  mkdirSync(join(dir, "bin"));
  const stub = `exec ${quote(process.execPath)} ${quote(join(PACKAGE_ROOT, "test", "stubs", "claude.mjs"))} "$@"`;
  const limit = Number.isFinite(failures) ? String(failures) : "1000000";
  writeFileSync(
    join(dir, "bin", "claude"),
    [
      "#!/bin/sh",
      `case " $* " in *" --version "*) ${stub};; esac`,
      `echo start >> ${quote(starts)}`,
      `n=$(wc -l < ${quote(starts)})`,
      `if [ "$n" -le ${limit} ]; then export STUB_SCENARIO=${scenario}; else export STUB_SCENARIO=success STUB_EDIT_SPEC=${quote(spec)}; fi`,
      stub,
      "",
    ].join("\n"),
  );
  chmodSync(join(dir, "bin", "claude"), 0o755);
  const env: Record<string, string> = { ANTHROPIC_API_KEY: "sk-ant-provider-stop-0123456789abcdef" };
  for (const name of Object.values(CODER_ENV)) env[name] = "";
  return {
    bin: join(dir, "bin"),
    env,
    runs: () => (existsSync(starts) ? readFileSync(starts, "utf8").split("\n").filter(Boolean).length : 0),
  };
}
