import { processIO } from "./io.js";
import { runCli } from "./program.js";
import { startTracingIfRequested } from "./tracing.js";

const tracing = await startTracingIfRequested(process.env);
process.exitCode = await runCli(process.argv.slice(2), processIO());
// LangSmith's pending uploads must not hold the shell: wait a bounded time, then leave (ADR 0042).
if (tracing !== null) {
  const lost = await tracing.finish();
  if (lost !== null) process.stderr.write(`${lost}\n`);
  process.exit();
}
