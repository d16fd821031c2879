// devflow's wrapper around a tape script (`node tape-channel-sender.cjs <script>`): tape has no
// reporter, its TAP goes to stdout, and devflow used to redirect that stdout into a file of the
// directory the run may write, where a process a test started could rewrite it after tape ended
// (attack 54e against tape). This wrapper connects to devflow's report channel (ADR 0089) before the
// script starts, takes the address out of the environment the script inherits, runs the script
// with its stdout through a pipe to here, copies it to its own stdout (the run's log), and sends
// all of it over that connection once the script has exited (a bail-out instead when the script
// was ended by a signal). Its exit code is the script's.
// devflow accepts one connection: one more is tampering; the wrapper killed early leaves its
// connection without a report. Loaded from devflow's install (by devflow's node), never from the
// checkout under test.
"use strict";
const { spawn } = require("node:child_process");
const { earlyReportConnection } = require("./report-channel-client.cjs");

// The channel's own limit, in the environment devflow gives the wrapper (report-channel.ts):
// anything past it fails the run there, so one byte more than it is all that needs keeping.
const KEEP_BYTES = Number(process.env.DEVFLOW_REPORT_MAX_BYTES) + 1 || Number.POSITIVE_INFINITY;
// How long the TAP may keep coming after the script exited (a process it left holding stdout must
// not hold the run).
const DRAIN_MS = 500;

const connection = earlyReportConnection();
const script = process.argv[2] ?? "";
const child = spawn("/bin/sh", ["-c", script], { stdio: ["inherit", "pipe", "inherit"] });
const kept = [];
let keptBytes = 0;
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  if (keptBytes >= KEEP_BYTES) return;
  const part = chunk.subarray(0, KEEP_BYTES - keptBytes);
  kept.push(part);
  keptBytes += part.length;
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));

child.on("exit", (code, signal) => {
  let sent = false;
  const done = () => {
    if (sent) return;
    sent = true;
    child.stdout.destroy();
    // Every process the run starts shares the script's stdout: one of them can write TAP of its
    // own there and kill tape before tape writes its real results (review 57). A script that did
    // not end by itself (a shell reports a child killed by a signal as 128 + the signal) has no
    // evidence to give: TAP's bail-out, which devflow's parser refuses, instead of what came.
    const killed = signal !== null || (code !== null && code >= 128);
    const report = killed
      ? `Bail out! devflow: the tape script was ended by a signal (${signal ?? `exit ${code}`}); what it printed is not evidence\n`
      : Buffer.concat(kept);
    connection.send(report).then(
      () => finish(code, signal),
      (error) => {
        process.stderr.write(`${error.message}\n`);
        finish(code === 0 || code === null ? 1 : code, null);
      },
    );
  };
  if (child.stdout.readableEnded) return done();
  const timer = setTimeout(done, DRAIN_MS);
  child.stdout.once("end", () => {
    clearTimeout(timer);
    done();
  });
});
child.on("error", (error) => {
  process.stderr.write(`devflow's tape wrapper could not start the script: ${error.message}\n`);
  process.exit(127);
});

function finish(code, signal) {
  // As a shell reports a child killed by a signal.
  process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0));
}
