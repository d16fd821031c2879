// Module hooks of devflow's assertion ledger (ADR 0048), registered by assertion-ledger.mjs in
// node:test's test-file processes: `import ... from "node:test"` resolves to a module that
// re-exports the ledger's wrapped node:test (`target`, a data: URL).
let target = null;

export function initialize(data) {
  target = data?.target ?? null;
}

export function resolve(specifier, context, next) {
  if (target && specifier === "node:test") return { url: target, shortCircuit: true };
  return next(specifier, context);
}
