// The plan coder (plan-coder.mjs) with its second task's behaviour set by the name it is run under,
// never by the environment: plan-coder-first-pass.mjs gets the duplicate check right at once,
// plan-coder-never-repairs.mjs keeps the case-sensitive near miss on every attempt. It rewrites
// the one `T2_MODE` line of plan-coder.mjs in memory and runs that source, so the three coders
// cannot drift apart.
import { readFileSync } from "node:fs";

export async function runPlanCoder(mode) {
  const source = readFileSync(new URL("./plan-coder.mjs", import.meta.url), "utf8");
  const line = 'const T2_MODE = "repair";';
  if (!source.includes(line)) throw new Error(`plan-coder.mjs has no line ${line}`);
  const variant = source.replace(line, `const T2_MODE = ${JSON.stringify(mode)};`);
  await import(`data:text/javascript;base64,${Buffer.from(variant).toString("base64")}`);
}
