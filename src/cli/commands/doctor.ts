import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { DEFAULT_CODER } from "../../coders/default-coder.js";
import { DEFAULT_ENDPOINT_TIMEOUT_MS } from "../../doctor/defaults.js";
import { DEFAULT_MODEL } from "../../models/default-model.js";
import { createRedactor, secretsFromEnv } from "../../util/redact.js";
import { DOCTOR_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { commandConfig } from "./command-config.js";

interface DoctorFlags {
  json?: boolean;
  repo?: string;
  coder: string;
  model: string;
  timeout: number;
}

const positiveSeconds = (value: string): number => {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError("--timeout must be a number > 0");
  return seconds;
};

/**
 * `devflow doctor`: exit 0 only when `devflow iterate` with these --coder/--model defaults can run
 * (Node, git, the model endpoint and that coder all usable); 2 otherwise, as for a configuration
 * error, with what to do on every failing line.
 */
export function registerDoctor(program: Command, io: CliIO): void {
  program
    .command("doctor")
    .description(
      "check Node, git, the model endpoint, every coder backend and the daemon, say how to fix what is missing and what confinement runs get here",
    )
    .addHelpText("after", DOCTOR_HELP)
    .option("--coder <name>", "the coder the defaults use (as for iterate)", DEFAULT_CODER)
    .option("-m, --model <name>", "the model the defaults use (as for iterate)", DEFAULT_MODEL)
    .option(
      "--timeout <seconds>",
      "bound of the model endpoint request",
      positiveSeconds,
      DEFAULT_ENDPOINT_TIMEOUT_MS / 1000,
    )
    .option("-r, --repo <path>", "the repository whose config file counts (default: the current one)")
    .option("--json", "one JSON object on stdout instead of the table")
    .action(async (flags: DoctorFlags, cmd: Command) => {
      // The effective config and where each value came from (ADR 0047); the checks use it.
      const { configReport, renderConfig, runSettings } = await import("../../config/index.js");
      // The checks load here, not at start-up (ADR 0042).
      const { renderDoctorReport, runDoctor } = await import("../../doctor/index.js");
      const config = await commandConfig(cmd, flags.repo ?? process.cwd(), ["timeout"]);
      const settings = runSettings(config.values, process.env);
      const checked = await runDoctor({
        coder: settings.coder,
        model: settings.model,
        endpointTimeoutMs: flags.timeout * 1000,
        env: settings.env,
      });
      // The daemon's data root, lock, config and /health (ADR 0054); a failed one blocks too.
      const { checkDaemon, daemonBlocking, renderDaemonSection } = await import(
        "../../daemon/doctor-check.js"
      );
      const daemon = await checkDaemon({ env: process.env });
      // What confinement runs get here (ADR 0021, 0068, 0069): information, never blocking.
      const { checkConfinement, renderConfinementSection } = await import(
        "../../process/confinement-check.js"
      );
      const confinement = checkConfinement(process.env);
      const blocking = [...checked.blocking, ...daemonBlocking(daemon)];
      const report = { ...checked, daemon, confinement, blocking, ready: blocking.length === 0 };
      // Keys never appear in the report by construction; servers' error bodies are redacted too.
      const redact = createRedactor(secretsFromEnv(process.env));
      io.out(
        redact(
          flags.json
            ? `${JSON.stringify({ ...report, config: configReport(config) })}\n`
            : `${renderDoctorReport(report, [renderConfinementSection(confinement), renderDaemonSection(daemon)])}\n${renderConfig(config)}`,
        ),
      );
      io.setExitCode(report.ready ? EXIT.completed : EXIT.usage);
    });
}
