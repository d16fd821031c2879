import { createInterface } from "node:readline/promises";

/**
 * One line read from the terminal, trimmed; null when the user ends input instead (Ctrl-D, or
 * stdin closed). node's readline rejects the question with "Aborted with Ctrl+D" then, which
 * ended devflow as an internal failure (exit 1) at any prompt. The readline closes again after
 * each line, so an editor or a coder started next gets the terminal.
 */
export async function readTerminalLine(question: string): Promise<string | null> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ABORT_ERR") return null;
    throw error;
  } finally {
    rl.close();
  }
}
