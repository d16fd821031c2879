import { appendFileSync } from "node:fs";

/** Records each resolved URL, then resolves as node would. */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.DEVFLOW_RECORD_IMPORTS, `${resolved.url}\n`);
  return resolved;
}
