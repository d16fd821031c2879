// devflow's assertion ledger (ADR 0048), the key's hand-over: a `--require` preload, because on
// Node 20 the `node --test` runner process loads `--require` preloads but not `--import` ones.
// devflow puts the per-run key in a file (not in the environment: the shell running the command
// would keep it in its /proc environ, readable by the test processes). The runner takes it, removes
// the file and passes the key to its test processes in DEVFLOW_LEDGER_KEY, set after start-up so it
// lives on the heap, not in the runner's /proc/<pid>/environ. assertion-ledger.mjs does the rest.
"use strict";
const { readFileSync, rmSync } = require("node:fs");

const KEY_FILE_ENV = "DEVFLOW_LEDGER_KEY_FILE";
const keyFile = process.env[KEY_FILE_ENV];
if (keyFile !== undefined) {
  delete process.env[KEY_FILE_ENV];
  const runner = process.env.NODE_TEST_CONTEXT === undefined && process.execArgv.includes("--test");
  if (runner && process.env.DEVFLOW_LEDGER_KEY === undefined) {
    try {
      const key = readFileSync(keyFile, "utf8").trim();
      rmSync(keyFile, { force: true });
      process.env.DEVFLOW_LEDGER_KEY = key;
    } catch {}
  }
}
