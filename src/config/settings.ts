import { DevflowError } from "../errors/index.js";

/**
 * Every setting a config file, the environment or a flag can set, by its dotted key (the path in
 * the config file), with its built-in default and the variable that sets it. One table, so doctor,
 * the trust rules and the resolver cannot disagree about what exists (ADR 0047).
 */
export interface EffectiveConfig {
  "model.name": string;
  /** null: the OpenAI default (https://api.openai.com/v1). */
  "model.base_url": string | null;
  "model.api_key_env": string;
  "model.timeout_seconds": number;
  "model.budget_seconds": number;
  "model.retries": number;
  "coder.backend": string;
  /** null: the backend's own default. */
  "coder.model": string | null;
  "coder.timeout_seconds": number;
  "coder.max_escalations": number;
  "tests.timeout_seconds": number;
  "tests.seam_runs": number;
  /** Files a test folder the seam's code names may hold and still be fingerprinted (ADR 0019). */
  "tests.seam_data_folder_limit": number;
  "limits.max_iterations": number;
  "limits.max_request_bytes": number;
  "commit.author_name": string;
  "commit.author_email": string;
  "commit.hooks": boolean;
  /** Only the user's file sets it. */
  trust_repo_config: boolean | string[];
}
export type ConfigKey = keyof EffectiveConfig;

export const DEFAULTS: EffectiveConfig = {
  "model.name": "gpt-4.1-mini",
  "model.base_url": null,
  "model.api_key_env": "OPENAI_API_KEY",
  "model.timeout_seconds": 90,
  "model.budget_seconds": 120,
  "model.retries": 2,
  "coder.backend": "junie",
  "coder.model": null,
  "coder.timeout_seconds": 900,
  "coder.max_escalations": 2,
  "tests.timeout_seconds": 300,
  "tests.seam_runs": 3,
  "tests.seam_data_folder_limit": 2_000,
  "limits.max_iterations": 5,
  "limits.max_request_bytes": 64 * 1024,
  "commit.author_name": "devflow",
  "commit.author_email": "devflow@localhost",
  "commit.hooks": false,
  trust_repo_config: false,
};

export const CONFIG_KEYS = Object.keys(DEFAULTS) as ConfigKey[];

const seconds = (name: string, raw: string, code: "MODEL_CONFIG" | "BAD_OPTION"): number => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new DevflowError(code, `${name} must be a number of seconds > 0 (got ${JSON.stringify(raw)})`);
  return n;
};
const whole = (name: string, raw: string, min: number, unit: string, code: "MODEL_CONFIG" | "BAD_OPTION") => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new DevflowError(
      code,
      `${name} must be a whole number${unit} ≥ ${min} (got ${JSON.stringify(raw)})`,
    );
  return n;
};
const url = (name: string, raw: string): string => {
  if (!/^https?:\/\/\S+$/.test(raw))
    throw new DevflowError("MODEL_CONFIG", `${name} must be an http(s) URL (got ${JSON.stringify(raw)})`);
  return raw;
};

/**
 * The environment variables of the layer between the files and the flags: the ones devflow read
 * before it had a config file, with the same messages for a bad value.
 */
export const ENV_VARS: Partial<
  Record<ConfigKey, { name: string; parse: (raw: string, name: string) => unknown }>
> = {
  "model.base_url": { name: "OPENAI_BASE_URL", parse: (raw, name) => url(name, raw) },
  "model.timeout_seconds": {
    name: "DEVFLOW_MODEL_TIMEOUT",
    parse: (raw, name) => seconds(name, raw, "MODEL_CONFIG"),
  },
  "model.budget_seconds": {
    name: "DEVFLOW_MODEL_BUDGET",
    parse: (raw, name) => seconds(name, raw, "MODEL_CONFIG"),
  },
  "model.retries": {
    name: "DEVFLOW_MODEL_RETRIES",
    parse: (raw, name) => whole(name, raw, 0, "", "MODEL_CONFIG"),
  },
  "tests.timeout_seconds": {
    name: "DEVFLOW_TEST_TIMEOUT",
    parse: (raw, name) => seconds(name, raw, "BAD_OPTION"),
  },
  "limits.max_request_bytes": {
    name: "DEVFLOW_MAX_REQUEST_BYTES",
    parse: (raw, name) => whole(name, raw, 1, " of bytes", "BAD_OPTION"),
  },
};
