// Moved to test/support/queue-harness.ts; this re-export keeps imports of branches in flight
// working until they are merged. New code imports from test/support.
export * from "../support/queue-harness.js";
