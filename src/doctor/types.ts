/**
 * What `devflow doctor` reports; `--json` prints a DoctorReport as is, so fields are snake_case
 * like devflow's artifacts.
 */

/** `warn`: works, with something worth knowing; only `fail` stops the defaults from running. */
export type CheckStatus = "ok" | "warn" | "fail";

export interface ToolCheck {
  name: "node" | "git";
  status: CheckStatus;
  version: string | null;
  /** Minimum version devflow needs, e.g. "20.19". */
  required: string;
  /** Executable that was checked, when one was found. */
  path: string | null;
  detail: string;
  /** What to do, when status is not ok. */
  hint: string | null;
}

export interface EndpointCheck {
  name: "model_endpoint";
  status: CheckStatus;
  base_url: string;
  model: string;
  /** HTTP status of the probe request; null when none was made or none came back. */
  http_status: number | null;
  detail: string;
  hint: string | null;
}

export interface CoderCheck {
  name: string;
  /** The backend the defaults use (--coder, default junie). */
  selected: boolean;
  installed: boolean;
  version: string | null;
  binary_path: string | null;
  /** null: the backend needs no credential, or does not say. */
  auth_configured: boolean | null;
  /** Installed and nothing missing: `devflow iterate --coder <name>` would start. */
  ready: boolean;
  /** Exactly how to install or configure what is missing (from the backend's probe). */
  hint: string | null;
  /** The backend could not be built or probed at all (unknown name, invalid DEVFLOW_* value). */
  error: string | null;
}

export interface DoctorReport {
  /** True when the defaults can run: exit code 0. */
  ready: boolean;
  defaults: { coder: string; model: string; base_url: string };
  checks: { node: ToolCheck; git: ToolCheck; model_endpoint: EndpointCheck };
  coders: CoderCheck[];
  /** One line per thing that stops the defaults from running; empty when ready. */
  blocking: string[];
}
