import type { Command } from "commander";
import { DATA_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

interface DataFlags {
  json?: boolean;
}

/** `devflow data`: the daemon's data root as a tree with counts and sizes; creates nothing (ADR 0051). */
export function registerData(program: Command, io: CliIO): void {
  program
    .command("data")
    .description(
      "print the daemon's data root (DEVFLOW_HOME or ~/.devflow): queue, data, cache, logs; read-only",
    )
    .addHelpText("after", DATA_HELP)
    .option("--json", "one JSON object on stdout")
    .action(async (flags: DataFlags) => {
      const { dataRoot } = await import("../../home/data-root.js");
      const { readDataTree, renderDataTree } = await import("../../daemon/data-tree.js");
      const tree = await readDataTree(dataRoot());
      io.out(flags.json ? `${JSON.stringify(tree)}\n` : renderDataTree(tree));
    });
}
