#!/usr/bin/env node
// The coder of scenarios that must stop before any coding (handoff, blocked, needs more context).
// The lane still needs a coder to start; if this one ever runs, the scenario's expectation is
// broken, and it says so in the transcript instead of changing anything.
console.log("This scenario must stop before coding, but the coder was spawned. Nothing was changed.");
process.exit(1);
