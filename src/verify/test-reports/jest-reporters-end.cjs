// Ends jest's `--reporters` list on devflow's command line, and does nothing else: jest's
// `--reporters` is an array option that takes every following word up to the next option as one
// more reporter, so `jest --reporters=<devflow's> test/unit` lost its path (ADR 0089). A
// `--testResultsProcessor` right after it is an option that takes one value; this one hands jest's
// results back unchanged. Loaded by jest from devflow's install, never from the checkout under test.
"use strict";
module.exports = function devflowReportersEnd(results) {
  return results;
};
