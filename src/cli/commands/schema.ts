import type { Command } from "commander";
import { SCHEMA_HELP } from "../command-help.js";
import type { CliIO } from "../io.js";

/** `devflow schema`: the ticket contract as JSON Schema (draft 2020-12), the same as schemas/ticket.schema.json. */
export function registerSchema(program: Command, io: CliIO): void {
  program
    .command("schema")
    .description("print the ticket contract (the frontmatter keys of a daemon ticket) as JSON Schema")
    .addHelpText("after", SCHEMA_HELP)
    .action(async () => {
      const { renderJsonSchema } = await import("../../artifacts/export-json-schemas.js");
      io.out(renderJsonSchema("ticket"));
    });
}
