// Sends what it reads on stdin to devflow's report channel (DEVFLOW_REPORT_SOCKET, ADR 0089) as one
// connection, and exits 0 once devflow has it all; any failure exits 1 with one line on stderr.
// A process of its own so that a runner's synchronous hook (jest's testResultsProcessor before
// jest 28) can deliver with execFileSync. Loaded from devflow's install, never from the checkout.
"use strict";
const net = require("node:net");

const address = process.env.DEVFLOW_REPORT_SOCKET;
if (!address) {
  process.stderr.write("DEVFLOW_REPORT_SOCKET is not set: devflow's reporter has nowhere to report\n");
  process.exit(1);
}
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  // `@name`: Linux's abstract socket `\0name` (an environment value cannot hold a NUL).
  const socket = net.connect(address.startsWith("@") ? `\0${address.slice(1)}` : address);
  socket.on("error", (error) => {
    process.stderr.write(`devflow's report channel: ${error.message}\n`);
    process.exit(1);
  });
  socket.on("connect", () => socket.end(Buffer.concat(chunks)));
  socket.on("close", (hadError) => {
    if (!hadError) process.exit(0);
  });
});
