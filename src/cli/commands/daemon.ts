import { type Command, Option } from "commander";
import { isDevflowError } from "../../errors/index.js";
import { DAEMON_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { SIGNAL_EXIT } from "../signals.js";

interface DaemonFlags {
  replay?: string;
  model?: string;
  coder?: string;
  logFormat: "human" | "json";
}

/**
 * `devflow daemon`: works through the data root's queue unattended (issue 12, ADR 0051). One per
 * data root; SIGTERM/SIGINT stop it gracefully, a second one at once.
 */
export function registerDaemon(program: Command, io: CliIO): void {
  const command = program
    .command("daemon")
    .description(
      "run the tickets of the queue unattended (changes on the iterate lane; audits, investigations, questions read-only)",
    )
    .addHelpText("after", DAEMON_HELP)
    .option("-m, --model <name>", "model for tickets that name none (default: devflow's config)")
    .option("--coder <name>", "coder for tickets that name none (default: devflow's config)")
    .option("--replay <cassette>", "answer every ticket's model calls from this cassette (offline)")
    .addOption(
      new Option("--log-format <format>", "stderr log lines: human, or the JSON lines of logs/daemon.log")
        .choices(["human", "json"])
        .default("human"),
    );
  command.action(async (flags: DaemonFlags) => {
    io.setExitCode(await daemonAction(flags, command, io));
  });
}

async function daemonAction(flags: DaemonFlags, command: Command, io: CliIO): Promise<number> {
  // Before the lock and the first ticket: a bad DEVFLOW_MAX_IDLE_* would fail every ticket's end.
  (await import("../../lanes/iterate/idle-limits-env.js")).checkIdleLimitsEnv(process.env);
  const { createRedactor, secretsFromEnv } = await import("../../util/redact.js");
  const redact = createRedactor(secretsFromEnv(process.env));
  // Until this daemon holds the lock it logs to stderr only: logs/ belongs to the running one.
  let log = (line: string, level: "info" | "warn" | "error" = "info") =>
    io.err(
      redact(
        flags.logFormat === "json"
          ? `${JSON.stringify({ time: new Date().toISOString(), level, msg: line })}\n`
          : `devflow daemon: ${line}\n`,
      ),
    );
  const { openQueue } = await import("../../daemon/index.js");
  // The worker and the runner load the lane: only this command imports them.
  const { Worker } = await import("../../daemon/worker.js");
  const { ticketRunner, verificationLimits } = await import("../../daemon/ticket-runner.js");
  const { acquireDaemonLock } = await import("../../home/daemon-paths.js");
  const queue = await openQueue();
  let lock: Awaited<ReturnType<typeof acquireDaemonLock>>;
  try {
    lock = await acquireDaemonLock(queue.ensureRoot());
  } catch (error) {
    // A supervisor must not respawn-loop on a daemon that is already running: exit 0.
    if (!isDevflowError(error, "DAEMON_RUNNING")) throw error;
    log(error.message);
    return EXIT.completed;
  }
  const { openDaemonOps } = await import("../../daemon/daemon-ops.js");
  const ops = await openDaemonOps(queue, flags.logFormat, io.err, redact);
  log = ops.log;
  try {
    const { commandConfig } = await import("./command-config.js");
    const { runSettings } = await import("../../config/index.js");
    // Defaults < user file < env < flags (ADR 0047); a ticket's repository config is not read.
    const config = runSettings((await commandConfig(command, null)).values, process.env);
    const { probeTarget } = await import("./daemon-endpoint.js");
    const worker = new Worker({
      root: queue.root,
      queue,
      config: queue.config,
      log,
      endpoint: flags.replay ? null : await probeTarget(config.env),
      events: ops.metrics.events,
      runner: ticketRunner(queue.root, {
        model: config.model,
        coder: config.coder,
        modelLimits: config.modelLimits,
        maxRequestBytes: config.maxRequestBytes,
        env: config.env,
        lane: { ...config.lane, ...verificationLimits(queue.config) },
        mode: flags.replay ? "replay" : "live",
        ...(flags.replay ? { cassettePath: flags.replay } : {}),
      }),
    });
    await ops.start(worker); // the reloader and /health (ADR 0054)
    const { stopReason } = await import("../../process/stop-signal.js");
    const { killLiveGroups } = await import("../../process/process-group.js");
    let first: "SIGINT" | "SIGTERM" | null = null;
    const onSignal = (name: "SIGINT" | "SIGTERM") => () => {
      if (first === null) {
        first = name;
        log(`${name}: no more claims; running tickets finish or stop resumably (${name} again to stop now)`);
        worker.stop(stopReason(name, null));
        return;
      }
      const killed = killLiveGroups();
      log(
        `stopped at once by ${name}${killed ? ` (${killed} process group(s) killed)` : ""}; the next start recovers the running tickets`,
      );
      lock.releaseSync();
      process.exit(SIGNAL_EXIT[name]);
    };
    const handlers = { SIGINT: onSignal("SIGINT"), SIGTERM: onSignal("SIGTERM") } as const;
    process.on("SIGINT", handlers.SIGINT);
    process.on("SIGTERM", handlers.SIGTERM);
    const { worker: w } = queue.config;
    log(
      `working on ${queue.root} (pid ${process.pid}; maxConcurrent ${w.maxConcurrent}, poll ${w.pollIntervalSeconds}s, grace ${w.graceSeconds}s)`,
    );
    try {
      await worker.run();
    } finally {
      process.off("SIGINT", handlers.SIGINT);
      process.off("SIGTERM", handlers.SIGTERM);
    }
    log("stopped");
    return EXIT.completed;
  } finally {
    await ops.close();
    await lock.release();
  }
}
