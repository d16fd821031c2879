import { DEFAULT_CODER } from "../coders/index.js";
import type { CoderDeps } from "../coders/registry.js";
import { createModelGateway, DEFAULT_MODEL } from "../models/create-gateway.js";
import { checkCoders } from "./coder-check.js";
import { checkModelEndpoint } from "./endpoint-check.js";
import { checkGit } from "./git-check.js";
import { checkNode } from "./node-check.js";
import type { CoderCheck, DoctorReport, EndpointCheck, ToolCheck } from "./types.js";

export interface DoctorOptions {
  /** The coder the defaults use (`--coder`); default junie, as for `devflow iterate`. */
  coder?: string;
  /** The model the defaults use (`--model`); default gpt-4.1-mini, as for `devflow iterate`. */
  model?: string;
  /** Bound of the endpoint request. */
  endpointTimeoutMs?: number;
  /** Where the model endpoint and key are read (the resolved config's, ADR 0047); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Node version to judge (tests); default the running one. */
  nodeVersion?: string;
}

/** The builtin coder is built over the live model layer; without a usable configuration it gets none. */
function coderDeps(model: string, env: NodeJS.ProcessEnv | undefined): CoderDeps {
  try {
    return { models: createModelGateway({ mode: "live", model, ...(env ? { env } : {}) }) };
  } catch {
    return {};
  }
}

function blockingReasons(
  tools: ToolCheck[],
  endpoint: EndpointCheck,
  selected: CoderCheck | undefined,
  coder: string,
): string[] {
  const reasons = tools
    .filter((tool) => tool.status === "fail")
    .map((tool) => `${tool.name}: ${tool.detail}`);
  if (endpoint.status === "fail") reasons.push(`model endpoint: ${endpoint.detail}`);
  if (selected === undefined || !selected.ready) {
    const why =
      selected === undefined
        ? "not found"
        : (selected.error ??
          (!selected.installed
            ? "not installed"
            : selected.auth_configured === false
              ? "no credentials configured"
              : (selected.hint ?? "not usable as configured")));
    reasons.push(`coder ${selected?.name ?? coder}: ${why}`);
  }
  return reasons;
}

/**
 * Checks whether `devflow iterate` with the given defaults can run here: Node, git, the model
 * endpoint (one cheap live request) and every coder backend (probes only, no model call).
 * Credentials are read from process.env, where the runs read them.
 */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const coder = options.coder?.trim() || DEFAULT_CODER;
  const model = options.model?.trim() || DEFAULT_MODEL;
  const node = checkNode(options.nodeVersion);
  const [git, endpoint, coders] = await Promise.all([
    checkGit(),
    checkModelEndpoint({
      model,
      ...(options.env ? { env: options.env } : {}),
      ...(options.endpointTimeoutMs !== undefined ? { timeoutMs: options.endpointTimeoutMs } : {}),
    }),
    checkCoders(coder, coderDeps(model, options.env)),
  ]);
  const selected = coders.find((check) => check.selected);
  const blocking = blockingReasons([node, git], endpoint, selected, coder);
  return {
    ready: blocking.length === 0,
    defaults: { coder: selected?.name ?? coder, model, base_url: endpoint.base_url },
    checks: { node, git, model_endpoint: endpoint },
    coders,
    blocking,
  };
}
