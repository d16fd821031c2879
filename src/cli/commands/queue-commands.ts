import type { Command } from "commander";
import type { CliIO } from "../io.js";
import { registerCancel } from "./cancel.js";
import { registerDaemon } from "./daemon.js";
import { registerData } from "./data.js";
import { registerList } from "./list.js";
import { registerRetry } from "./retry.js";
import { registerSchema } from "./schema.js";
import { registerStatus } from "./status.js";
import { registerSubmit } from "./submit.js";

/**
 * The daemon's queue commands (ADR 0051), registered together so program.ts (a file several people
 * edit) gains one line for all of them.
 */
export function registerQueueCommands(program: Command, io: CliIO): void {
  registerSubmit(program, io);
  registerList(program, io);
  registerStatus(program, io);
  registerSchema(program, io);
  registerCancel(program, io);
  registerRetry(program, io);
  registerData(program, io);
  registerDaemon(program, io);
}
