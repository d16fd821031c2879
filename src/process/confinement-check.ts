import { pidNamespacePrefix, runLeftoversDieWithTheRun } from "./containment.js";
import {
  EXPOSE_RUN_ENV,
  type MountNamespaceMode,
  mountNamespaceInUse,
  mountNamespaceWorks,
} from "./mount-namespace.js";

/**
 * What confinement the runs get on this machine (ADR 0021, 0025, 0068, 0069): what `devflow doctor`
 * shows so a user knows which guarantees hold before trusting a run unattended. Not a readiness
 * check: devflow runs everywhere, with detection instead of prevention where a part is missing.
 * `--json` prints it as is (snake_case).
 */
export interface ConfinementCheck {
  /** Each run in its own PID namespace: nothing a coder starts outlives it (ADR 0020). */
  pid_namespace: boolean;
  /** The mount plan's mode (null: none; changes are then detected, not prevented) and why not. */
  mount_namespace: { mode: MountNamespaceMode | null; why_not: string | null };
  /** /run covered in the plan (ADR 0069): false without the plan or with DEVFLOW_EXPOSE_RUN=1. */
  run_hidden: boolean;
  /** Idle coder checkouts reused by the next task (ADR 0050): only with a PID namespace. */
  coder_checkout_reuse: boolean;
}

export function checkConfinement(env: NodeJS.ProcessEnv = process.env): ConfinementCheck {
  const pid = pidNamespacePrefix() !== null;
  const mode = mountNamespaceInUse();
  return {
    pid_namespace: pid,
    mount_namespace: { mode, why_not: mode === null ? whyNoMountNamespace(env) : null },
    run_hidden: mode !== null && env[EXPOSE_RUN_ENV] !== "1",
    // The reuse rule's own owner (ADR 0050), not a second copy of it here.
    coder_checkout_reuse: runLeftoversDieWithTheRun(),
  };
}

function whyNoMountNamespace(env: NodeJS.ProcessEnv): string {
  if (process.platform !== "linux") return `${process.platform} has no mount namespaces`;
  if (env.DEVFLOW_NO_MOUNT_NAMESPACE === "1") return "turned off by DEVFLOW_NO_MOUNT_NAMESPACE=1";
  if (env.DEVFLOW_NO_PID_NAMESPACE === "1") return "turned off by DEVFLOW_NO_PID_NAMESPACE=1";
  if (!mountNamespaceWorks() && process.getuid?.() === 0)
    return "the probe failed as root (unshare or setpriv missing, or mounts refused here)";
  return "the probe failed: this user may not make a user namespace with mounts (kernel.unprivileged_userns_clone or user.max_user_namespaces, an AppArmor restriction such as Ubuntu 24.04's, util-linux before 2.38, no setpriv)";
}

/** The human section of `devflow doctor`. */
export function renderConfinementSection(check: ConfinementCheck): string[] {
  const mode = check.mount_namespace.mode;
  const lines = ["Confinement (what a coder and the commands it can influence reach; ADR 0021)"];
  lines.push(
    check.pid_namespace
      ? "  ✓  processes    a PID namespace per run: nothing a coder starts outlives it"
      : "  !  processes    no PID namespace: leftovers are found by a marker they inherit and ended; one that clears it is not seen",
  );
  if (mode !== null)
    lines.push(
      `  ✓  mount plan   ${mode === "root" ? "as root" : "inside a user namespace, with your uid"}: .devflow hidden, your checkout and node_modules read-only, no capabilities`,
    );
  else
    lines.push(
      `  !  mount plan   none (${check.mount_namespace.why_not}): changes to your checkout and .devflow are detected, not prevented`,
    );
  if (mode !== null)
    lines.push(
      check.run_hidden
        ? "  ✓  /run         hidden: no service manager, session bus, keyring or container engine socket"
        : `  !  /run         shown as it is (${EXPOSE_RUN_ENV}=1): its service sockets can start processes outside devflow's reach`,
    );
  lines.push(
    `     reuse        idle coder checkouts ${check.coder_checkout_reuse ? "reused by the next task" : "not reused (no PID namespace): every task checks the base out fresh"}`,
  );
  return lines;
}
