import { COMMAND_CODER_PREFIX } from "../coders/command.js";
import { type CoderBackend, isCoderUnavailable } from "../coders/contract.js";
import { knownCoders, resolveCoder } from "../coders/index.js";
import type { CoderDeps } from "../coders/registry.js";
import type { CoderCheck } from "./types.js";

/** How knownCoders() lists the command coder; probing it only checks the shell it runs through. */
const COMMAND_FORM = `${COMMAND_CODER_PREFIX}<shell>`;

function errorText(error: unknown): { error: string; hint: string | null } {
  if (isCoderUnavailable(error)) return { error: error.message, hint: error.hint };
  return { error: error instanceof Error ? error.message : String(error), hint: null };
}

function unavailable(name: string, selected: boolean, error: unknown): CoderCheck {
  return {
    name,
    selected,
    installed: false,
    version: null,
    binary_path: null,
    auth_configured: null,
    ready: false,
    ...errorText(error),
  };
}

async function probeBackend(backend: CoderBackend, name: string, selected: boolean): Promise<CoderCheck> {
  try {
    const probe = await backend.probe();
    const authConfigured = probe.authConfigured ?? null;
    return {
      name,
      selected,
      installed: probe.installed,
      version: probe.version,
      binary_path: probe.binaryPath ?? null,
      auth_configured: authConfigured,
      // The contract's hint is null exactly when nothing is missing.
      ready: probe.installed && probe.hint === null && authConfigured !== false,
      hint: probe.hint,
      error: null,
    };
  } catch (error) {
    return unavailable(name, selected, error);
  }
}

/**
 * Probes every registered backend (no model call; CLIs run `--version` only) plus the selected one
 * when it is a concrete `command:<shell>` or a name nobody registered, which then reports why.
 */
export async function checkCoders(selected: string, deps: CoderDeps = {}): Promise<CoderCheck[]> {
  let selectedName = selected.trim();
  let selectedBackend: CoderBackend | null = null;
  let selectedError: unknown = null;
  try {
    selectedBackend = resolveCoder(selected, deps);
    selectedName = selectedBackend.name;
  } catch (error) {
    selectedError = error;
  }

  const names = knownCoders();
  const rows = names.map(async (name): Promise<CoderCheck> => {
    const isSelected = name === selectedName;
    if (isSelected && selectedBackend !== null) return probeBackend(selectedBackend, name, true);
    if (isSelected && selectedError !== null) return unavailable(name, true, selectedError);
    try {
      return await probeBackend(resolveCoder(name, deps), name, false);
    } catch (error) {
      // A backend that cannot even be built (an invalid DEVFLOW_* value) is listed with the reason.
      return unavailable(name, false, error);
    }
  });
  if (!names.includes(selectedName)) {
    rows.push(
      selectedBackend !== null
        ? probeBackend(selectedBackend, selectedName, true)
        : Promise.resolve(unavailable(selectedName, true, selectedError)),
    );
  }
  const checks = await Promise.all(rows);
  // A concrete command coder replaces the generic form in the list.
  return selectedName.startsWith(COMMAND_CODER_PREFIX) && selectedName !== COMMAND_FORM
    ? checks.filter((check) => check.name !== COMMAND_FORM)
    : checks;
}
