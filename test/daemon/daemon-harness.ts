// Moved to test/support/daemon-harness.ts; this re-export keeps imports of branches in flight
// working until they are merged. New code imports from test/support.
export * from "../support/daemon-harness.js";
