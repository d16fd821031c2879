import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { SCHEMAS_DIR } from "../../src/artifacts/schema-files.js";

const ajv = new Ajv2020({ allErrors: true, strict: true });
const load = (name: string) => ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, name), "utf8")));
const eventLine = load("event_line.schema.json");
const resultLine = load("result_line.schema.json");

/**
 * Every problem with a `--json` stdout against the published JSON Schemas (schemas/*.schema.json,
 * what a script consuming devflow would validate with): a line that is not JSON, an event line that
 * does not fit event_line, a result line that does not fit result_line, anything else, and not
 * exactly one result line, last.
 */
export function jsonStdoutProblems(stdout: string): string[] {
  const problems: string[] = [];
  if (!stdout.endsWith("\n")) problems.push("stdout does not end with a newline");
  const lines = stdout.split("\n").filter((l) => l !== "");
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1} is not JSON: ${line.slice(0, 120)}`);
      return;
    }
    const type = (value as { type?: unknown }).type;
    const check = type === "event" ? eventLine : type === "result" ? resultLine : null;
    if (check === null) problems.push(`line ${i + 1} has type ${JSON.stringify(type)}`);
    else if (!check(value))
      problems.push(`line ${i + 1} (${type}): ${ajv.errorsText(check.errors, { separator: "; " })}`);
  });
  const results = lines.filter((l) => l.startsWith('{"type":"result"'));
  if (results.length !== 1) problems.push(`${results.length} result lines, not 1`);
  else if (lines.at(-1) !== results[0]) problems.push("the result line is not the last line");
  return problems;
}

/** The parsed last line (the result). */
export function resultOf(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}
