import type { ModelGateway } from "../models/contract.js";
import { COMMAND_CODER_PREFIX, createCommandCoder } from "./command.js";
import { type CoderBackend, coderUnavailableError } from "./contract.js";

/** What a backend may need from the running devflow to be built (the builtin coder needs models). */
export interface CoderDeps {
  models?: ModelGateway;
}

export type CoderFactory = (deps: CoderDeps) => CoderBackend;

const COMMAND_FORM = `${COMMAND_CODER_PREFIX}<shell>`;
const NAME = /^[a-z][a-z0-9_-]*$/;
const factories = new Map<string, CoderFactory>();

/**
 * Makes a backend resolvable by name. Backends register themselves from src/coders/index.ts,
 * so adding one never touches the iterate lane. Registering a taken name is a mistake unless
 * `replace` says otherwise (tests swapping in a stub).
 */
export function registerCoder(
  name: string,
  factory: CoderFactory,
  options: { replace?: boolean } = {},
): void {
  if (!NAME.test(name) || name === "command") {
    throw new TypeError(
      `cannot register coder "${name}": names are lower-case letters, digits, "-" or "_" and "command" is reserved for ${COMMAND_FORM}`,
    );
  }
  if (factories.has(name) && options.replace !== true) {
    throw new Error(`coder "${name}" is already registered; pass { replace: true } to swap it`);
  }
  factories.set(name, factory);
}

/** Registered names, sorted, followed by the `command:<shell>` form. */
export function knownCoders(): string[] {
  return [...[...factories.keys()].sort(), COMMAND_FORM];
}

/**
 * The backend for a `--coder` value: a registered name (case-insensitive) or `command:<shell>`.
 * Unknown or malformed names throw a CODER_UNKNOWN DevflowError listing what is available.
 */
export function resolveCoder(name: string, deps: CoderDeps = {}): CoderBackend {
  const trimmed = name.trim();
  if (trimmed.toLowerCase().startsWith(COMMAND_CODER_PREFIX)) {
    return createCommandCoder(trimmed.slice(COMMAND_CODER_PREFIX.length));
  }
  const factory = factories.get(trimmed.toLowerCase());
  if (factory === undefined) {
    const known = knownCoders().join(", ");
    throw coderUnavailableError(
      "CODER_UNKNOWN",
      trimmed === ""
        ? `no coder named; known coders: ${known}`
        : `unknown coder "${trimmed}"; known coders: ${known}`,
      `pick one of: ${known} (${COMMAND_FORM} runs your own shell command with the prompt in $DEVFLOW_PROMPT_FILE)`,
    );
  }
  return factory(deps);
}
