// devflow's preload for every verification command (ADR 0040): loaded with `--import` through
// NODE_OPTIONS by every node process a seam, canary, base or regression run starts, before any of
// the code under test. It pins every member of `node:assert` and `node:assert/strict` (the same
// object as `assert.strict`) to the function node gave it: each becomes a non-configurable accessor
// whose setter throws, so code that neuters an assertion (`assert.strictEqual = () => {}`,
// `Object.defineProperty`, `delete`) fails loudly in strict and sloppy code alike instead of making
// a broken test pass. Loaded by node from devflow's install (read-only in the namespace, ADR 0038),
// never from the checkout under test.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const assert = require("node:assert");
const strict = require("node:assert/strict");

function pin(target, label) {
  for (const key of Reflect.ownKeys(target)) {
    const d = Object.getOwnPropertyDescriptor(target, key);
    // Functions' own `name`/`length` are not writable already; only writable members can be swapped.
    if (!d?.configurable || !("value" in d) || !d.writable) continue;
    const value = d.value;
    const name = `${label}.${String(key)}`;
    Object.defineProperty(target, key, {
      enumerable: d.enumerable,
      configurable: false,
      get: () => value,
      set() {
        throw new TypeError(
          `devflow: ${name} is frozen in verification runs; code under test may not replace node:assert (ADR 0040)`,
        );
      },
    });
  }
}

pin(assert, "assert");
if (strict !== assert) pin(strict, "assert.strict");
