import { type Command, Option } from "commander";
import { DevflowError } from "../../errors/index.js";
import type { CliIO } from "../io.js";
import { addModelLimitOptions, type ModelLimitFlags, modelLimitsFromFlags } from "./limit-flags.js";

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
    .argument("[message...]", "the message, in plain words")
    .option("-m, --model <name>", "model for the router", "gpt-4.1-mini")
    .addOption(
      new Option("--replay <cassette>", "answer model calls from a cassette (offline)").conflicts("record"),
    )
    .option("--record <cassette>", "call the live model and save its answer as a cassette")
    .option("--json", "print the decision as one JSON object");
  addModelLimitOptions(command).action(async (words: string[], flags: RouteFlags) => {
    const message = words.join(" ").trim();
    if (!message)
      throw new DevflowError(
        "REQUEST_EMPTY",
        'the message is empty: devflow route "what you would say in the chat"',
      );
    // The router, the gateway and the size rule load here, not at start-up (ADR 0042).
    const { assertRequestSize, maxRequestBytes } = await import("../../lanes/request-size.js");
    const { createModelGateway } = await import("../../models/create-gateway.js");
    const { routeMessage } = await import("../../agents/router/router.js");
    assertRequestSize(message, maxRequestBytes(undefined, process.env));
    const gateway = createModelGateway({
      mode: flags.replay ? "replay" : flags.record ? "record" : "live",
      model: flags.model,
      ...modelLimitsFromFlags(flags),
      ...(flags.replay || flags.record ? { cassettePath: flags.replay ?? flags.record } : {}),
    });
    const decision = await routeMessage({ gateway, message, priorTurns: [] });
    await gateway.flush();
    if (flags.json) io.out(`${JSON.stringify(decision)}\n`);
    else io.out(`${decision.route} (confidence ${decision.confidence.toFixed(2)}): ${decision.rationale}\n`);
  });
}
