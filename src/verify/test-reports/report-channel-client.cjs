// The runner's side of devflow's report channel (ADR 0089), for devflow's hooks in a runner (jest's
// reporter, vitest's): `openReportConnection()` connects at once, when the runner makes the hook,
// before any test file runs, and `send(text)` sends the report over that same connection when the
// run completes. devflow accepts exactly one connection per run and reads it to its end, so:
// - a process of the run that sends results of its own, before or after, makes a second one: the
//   run fails as tampering;
// - a process that ends the runner or the hook early leaves this connection without a report: the
//   run's report is empty, never a pass.
// Loaded from devflow's install, never from the checkout under test.
"use strict";
const net = require("node:net");

exports.openReportConnection = function openReportConnection() {
  const address = process.env.DEVFLOW_REPORT_SOCKET;
  if (!address)
    return failed(new Error("DEVFLOW_REPORT_SOCKET is not set: devflow's hook has nowhere to report"));
  // `@name`: Linux's abstract socket `\0name` (an environment value cannot hold a NUL).
  const socket = net.connect(address.startsWith("@") ? `\0${address.slice(1)}` : address);
  let failure = null;
  const connected = new Promise((resolve) => {
    socket.once("connect", resolve);
    socket.once("error", (error) => {
      failure = error;
      resolve();
    });
  });
  return {
    async send(text) {
      await connected;
      if (failure) throw channelError(failure);
      await new Promise((resolve, reject) => {
        socket.once("error", (error) => reject(channelError(error)));
        socket.end(text, resolve);
      });
      // Sent (in devflow's receive queue): the runner's exit must not wait for devflow's side to close.
      socket.unref();
    },
  };
};

function failed(error) {
  return {
    async send() {
      throw channelError(error);
    },
  };
}

function channelError(error) {
  // The exit code says it too, for a runner that would let a hook's failure pass.
  process.exitCode = 1;
  return new Error(`devflow's report channel: ${error.message}`);
}

// One connection per process, made by the first caller (a hook's `--require`, run before the test
// files load) and shared with the hook's reporter, which the runner makes later. The address then
// leaves the environment: a process the run starts afterwards (a test's child, a runner's worker)
// does not inherit it, so the runner's own workers never open a second connection.
let early = null;
exports.earlyReportConnection = function earlyReportConnection() {
  if (early) return early;
  early = exports.openReportConnection();
  delete process.env.DEVFLOW_REPORT_SOCKET;
  delete process.env.DEVFLOW_REPORT_MAX_BYTES;
  return early;
};
