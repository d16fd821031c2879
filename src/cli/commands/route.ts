import { type Command, Option } from "commander";
import { DevflowError } from "../../errors/index.js";
import { unusedAnswersWarning } from "../cassette-leftovers.js";
import { ROUTE_HELP } from "../command-help.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { plainResultLine, writeLine } from "../json-output.js";
import { StopSignals } from "../signals.js";
import { commandConfig } from "./command-config.js";
import { addModelLimitOptions, type ModelLimitFlags } from "./limit-flags.js";

interface RouteFlags extends ModelLimitFlags {
  model: string;
  replay?: string;
  record?: string;
  json?: boolean;
}

/** `devflow route "<message>"`: the intake router's decision alone, for scripting and debugging. */
export function registerRoute(program: Command, io: CliIO): void {
  const command = program
    .command("route")
    .description("show which lane (iterate, insight, idea, neither) a message would be routed to")
    .addHelpText("after", ROUTE_HELP)
    .argument("[message...]", "the message, in plain words")
    .option("-m, --model <name>", "model for the router", "gpt-4.1-mini")
    .addOption(
      new Option("--replay <cassette>", "answer model calls from a cassette (offline)").conflicts("record"),
    )
    .option("--record <cassette>", "call the live model and save its answer as a cassette")
    .option("--json", "print the decision as one JSON result line");
  addModelLimitOptions(command).action(async (words: string[], flags: RouteFlags, cmd: Command) => {
    const message = words.join(" ").trim();
    if (!message)
      throw new DevflowError(
        "REQUEST_EMPTY",
        'the message is empty: devflow route "what you would say in the chat"',
      );
    // The router, the gateway and the size rule load here, not at start-up (ADR 0042).
    const { assertRequestSize } = await import("../../lanes/request-size.js");
    const { openModelGateway } = await import("../../models/gateway.js");
    const { routeMessage } = await import("../../agents/router/router.js");
    // Defaults < user file < repo file (the current checkout's) < env < flags (ADR 0047).
    const { runSettings } = await import("../../config/index.js");
    const config = runSettings((await commandConfig(cmd, process.cwd())).values, process.env);
    assertRequestSize(message, config.maxRequestBytes);
    const gateway = await openModelGateway({
      mode: flags.replay ? "replay" : flags.record ? "record" : "live",
      model: config.model,
      ...config.modelLimits,
      env: config.env,
      ...(flags.replay || flags.record ? { cassettePath: flags.replay ?? flags.record } : {}),
    });
    // One model call, nothing to resume: a stop signal exits at once with 130/143 (ADR 0043).
    const stop = new StopSignals(io, { abortable: false });
    const decision = await routeMessage({ gateway, message, priorTurns: [] }).finally(() => stop.dispose());
    await gateway.flush();
    const leftover = flags.replay ? unusedAnswersWarning(flags.replay, gateway.unusedReplies()) : null;
    if (leftover) io.err(leftover);
    if (flags.json) writeLine(io.out, { ...plainResultLine("route", EXIT.completed), decision });
    else io.out(`${decision.route} (confidence ${decision.confidence.toFixed(2)}): ${decision.rationale}\n`);
  });
}
