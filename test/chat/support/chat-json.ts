import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { SCHEMAS_DIR } from "../../../src/artifacts/schema-files.js";

const ajv = new Ajv2020({ allErrors: true, strict: true });
const resultLine = ajv.compile(
  JSON.parse(readFileSync(join(SCHEMAS_DIR, "result_line.schema.json"), "utf8")),
);

/**
 * Every problem with a `devflow chat --json` stdout (ADR 0049): a line that is not a JSON object
 * with a string `type`, not exactly one `result` line, the result line not last, or not fitting
 * the published result_line schema. The chat's other lines are its own events (src/chat/output.ts).
 */
export function chatStdoutProblems(stdout: string): string[] {
  const problems: string[] = [];
  if (!stdout.endsWith("\n")) problems.push("stdout does not end with a newline");
  const lines = stdout.split("\n").filter((l) => l !== "");
  const parsed = lines.map((line, i) => {
    try {
      const value = JSON.parse(line) as { type?: unknown };
      if (typeof value.type !== "string") problems.push(`line ${i + 1} has no type`);
      return value;
    } catch {
      problems.push(`line ${i + 1} is not JSON: ${line.slice(0, 120)}`);
      return {};
    }
  });
  const results = parsed.filter((v) => v.type === "result");
  if (results.length !== 1) problems.push(`${results.length} result lines, not 1`);
  else if (parsed.at(-1) !== results[0]) problems.push("the result line is not the last line");
  else if (!resultLine(results[0]))
    problems.push(`result line: ${ajv.errorsText(resultLine.errors, { separator: "; " })}`);
  return problems;
}
