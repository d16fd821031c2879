// devflow's `--require` for mocha's regression runs (ADR 0083): no suite stops at its first failure.
// `--no-bail` clears the root suite's bail only; a suite's own `this.bail(true)` (a documented way
// to write an ordered flow) stayed, and a failure base already had at its first test left the rest
// of that suite unrun on base and on every attempt alike, so a break there passed regression
// (review, stop 44). mocha's runner reads `suite._bail`; an accessor on Suite.prototype that always
// reads false and ignores writes covers `this.bail(true)`, `suite._bail = true` and the inheritance
// of `Suite.create`. The Suite patched is the one this mocha process loaded (its lib/suite.js is in
// require.cache before mocha handles `--require`), else the project's, resolved from the working
// directory; without either nothing is patched and the project's stop stays.
"use strict";

const { createRequire } = require("node:module");
const { join } = require("node:path");

function projectSuite() {
  const loaded = Object.keys(require.cache).find((path) => /[\\/]mocha[\\/]lib[\\/]suite\.js$/.test(path));
  if (loaded) return require.cache[loaded].exports;
  try {
    return createRequire(join(process.cwd(), "noop.js"))("mocha").Suite;
  } catch {
    return undefined;
  }
}

const Suite = projectSuite();
if (typeof Suite === "function" && Suite.prototype) {
  Object.defineProperty(Suite.prototype, "_bail", {
    configurable: true,
    get: () => false,
    set: () => {},
  });
}
